"""`python -m checkers.cli`: the thmcheck command."""

import sys

from checkers.cli import main

sys.exit(main())

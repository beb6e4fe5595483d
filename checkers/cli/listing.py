"""The list command: every registered theorem in one line, or as the README's table, read from the catalog."""

from __future__ import annotations

import json

from checkers import registry
from checkers.catalog import Entry
from checkers.outcome import EXIT_PASS


def list_theorems(arguments) -> int:
    if arguments.paper is not None:
        from checkers.cli.papers import print_paper
        return print_paper(arguments.paper, as_json=arguments.json)
    entries = registry.listing()
    if arguments.json:
        print(json.dumps([{"id": e.id, "title": e.title, "provenance": e.provenance, "source": e.source}
                          for e in entries], indent=2))
        return EXIT_PASS
    if arguments.markdown:
        print(markdown_table(entries))
        return EXIT_PASS
    width = max(len(e.id) for e in entries)
    for e in entries:
        print(f"{e.id.ljust(width)}  {e.provenance:9}  {e.title}")
    return EXIT_PASS


def markdown_table(entries: list[Entry]) -> str:
    """The README's theorem table: one row per theorem, in family order, from the statements and checkers."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")
    rows = ["| id | family | provenance | claim | how |", "|---|---|---|---|---|"]
    for entry in sorted(entries, key=lambda e: (e.family, e.id)):
        rows.append(f"| `{entry.id}` | {entry.family} | {entry.provenance} | {cell(entry.statement)} | "
                    f"{cell(entry.simulation)} |")
    return "\n".join(rows)

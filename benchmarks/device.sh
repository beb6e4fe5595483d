#!/usr/bin/env bash
# The device run (benchmarks/bench_device.py) on a lent GPU machine, its log and device.json into OUT.
#
#     benchmarks/device.sh [OUT]     (default: device-out)
#
# The lent machine has no network, and its python3 already holds torch, numpy, scipy, sympy and mpmath. The project's
# other packages travel as wheels in .whl (carried with the call; docs/derivations/statistics.md says which), installed
# into /tmp/site. The project runs from this checkout (PYTHONPATH), not installed. Without a GPU the same script runs
# at small sizes on the CPU: tests/test_bench_device.py runs it so.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-device-out}
python=${PYTHON:-python3}
mkdir -p "$out"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
if ! "$python" -c "import array_api_compat, flint, threadpoolctl, tqdm" 2>/dev/null; then
    if [ -d .whl ]; then
        "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
        export PYTHONPATH="$PYTHONPATH:/tmp/site"
    else
        echo "device.sh: the project's packages are missing and no .whl folder of wheels was carried" >&2
        exit 2
    fi
fi
"$python" benchmarks/bench_device.py --out "$out" "${@:2}" 2>&1 | tee "$out/device.log"

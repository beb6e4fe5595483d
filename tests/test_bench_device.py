"""benchmarks/device.sh as a machine without a GPU runs it: small sizes on the CPU, each step timed, device.json
written, and the checks still on numpy only named."""

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_device_script_runs_at_small_sizes_without_a_gpu(tmp_path):
    result = subprocess.run(["bash", str(ROOT / "benchmarks" / "device.sh"), str(tmp_path), "--sizes", "100", "200",
                             "--checks", "spike-strength", "--timeout", "120"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((tmp_path / "device.json").read_text())
    assert (tmp_path / "device.log").read_text() == result.stdout
    assert not report["on_device"] and set(report["matmul"]["tflops"]) == {"float64", "float32"}
    assert all(rate > 0 for rate in report["matmul"]["tflops"].values())
    assert [row["size"] for row in report["one_step"]] == [100, 200] and all(row["ran"] for row in report["one_step"])
    [check] = report["checks"]
    assert check["theorem"] == "spike-strength" and check["fidelity"] == "quick" and check["outcome"] == "pass"
    assert check["backend"] == report["backend"] != "numpy" and check["device"] == "cpu"
    assert "giant-step-risk" in report["numpy_only"] and "spike-strength" not in report["numpy_only"]
    assert "nc1-bound" not in report["numpy_only"]  # exact: nothing sampled to move to a device

"""The report and the notebooks' pages render in a real browser (headless Chromium, Debian's `chromium`), offline,
without console errors."""

import re
import shutil
import subprocess

import pytest

from checkers.report import build_report
from checkers.sweep import plan, sweep
from theorems.papers import PAPERS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# the flags of a quiet, offline headless start: no sandbox (CI runs as root), no background network traffic
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it "
                                "with apt-get where it can; elsewhere: apt-get install chromium)")


def _chromium(tmp_path, *arguments) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *arguments],
                          capture_output=True, text=True, timeout=120)


def test_the_report_renders_without_console_errors(tmp_path):
    store = tmp_path / "s.sqlite"
    sweep(plan("dual-kernel", {"rho": ["0.3", "0.6"]}, 1), store, executor="serial", progress=False)
    sweep(plan("dual-kernel", {"rho": ["0.3", "0.6"]}, 1, overrides={"c1": "0.52"}), store, executor="serial",
          progress=False)
    sweep(plan("spike-outlier", {"learning_rate": ["0.5"]}, 1), store, executor="serial", progress=False)
    page = build_report(tmp_path / "out", store=store, command="thmcheck report --from s.sqlite --out out")
    rendered = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert rendered.returncode == 0, rendered.stderr[-2000:]
    console = [line for line in rendered.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console  # the page has no script: any console message is an error of the page
    dom = rendered.stdout
    assert "<h1>thmcheck report</h1>" in dom and 'id="dual-kernel"' in dom
    assert "fidelity <b>quick</b>" in dom and "seed index 0 per setting" in dom  # what was run, at the top
    assert "1 not applicable" in dom and "1 not applicable, 0" not in dom  # spike-outlier below its threshold
    assert "conjecture c1=13/25" in dom
    overlaid = re.findall(r'<img src="figures/dual-kernel-\d\.png" alt="dual-kernel: [a-z-]+, with conjecture '
                          r'c1=13/25 overlaid"', dom)
    assert overlaid, dom[:3000]
    picture = tmp_path / "page.png"
    shot = _chromium(tmp_path, f"--screenshot={picture}", "--window-size=1200,2000", page.as_uri())
    assert shot.returncode == 0 and picture.stat().st_size > 10_000, shot.stderr[-2000:]


def test_the_browser_check_sees_a_broken_page(tmp_path):
    """The check above can fail: a page whose script throws shows up in Chromium's console log."""
    page = tmp_path / "broken.html"
    page.write_text("<html><body><p>x</p><script>undefined_function();</script></body></html>", encoding="utf-8")
    rendered = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert any(":CONSOLE" in line and "ReferenceError" in line for line in rendered.stderr.splitlines())


def test_a_notebook_page_renders_offline_with_its_figures(tmp_path):
    """The static page of a notebook shows its text and figures with no network: Chromium runs with background
    networking off and no proxy to reach, and finds every figure decoded (an image that failed to load has no
    natural width)."""
    pytest.importorskip("marimo")
    from pathlib import Path

    from checkers.notebook_pages import NOTEBOOKS, write_pages
    [page] = write_pages(tmp_path / "pages", [Path(NOTEBOOKS) / "hermite_and_dual_kernels.py"])
    probe = tmp_path / "probe.html"  # the page, with a script that writes how many figures decoded into the DOM
    probe.write_text(page.read_text(encoding="utf-8").replace(
        "</body>", "<script>addEventListener('load', () => { const shown = [...document.images].filter("
                   "image => image.naturalWidth > 0).length; document.title = 'figures ' + shown + ' of ' + "
                   "document.images.length; });</script></body>"), encoding="utf-8")
    rendered = _chromium(tmp_path, "--proxy-server=127.0.0.1:9", "--dump-dom", probe.as_uri())
    assert rendered.returncode == 0, rendered.stderr[-2000:]
    console = [line for line in rendered.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    title = re.search(r"<title>figures (\d+) of (\d+)</title>", rendered.stdout)
    assert title and int(title.group(1)) == int(title.group(2)) >= 2, rendered.stdout[:500]
    assert "Hermite coefficients and dual kernels" in rendered.stdout and "Parseval" in rendered.stdout


def _review_dom(key: str, tmp_path):
    """A paper's review page at quick fidelity, rendered offline (any request would meet a closed proxy): its DOM,
    once the render is clean (no console message) and every section is there; and the page's path."""
    from checkers.review import run_review

    page = run_review(key, tmp_path / "review", fidelity="quick", workers=1, progress=False)
    rendered = _chromium(tmp_path, "--proxy-server=127.0.0.1:9", "--dump-dom", page.as_uri())
    assert rendered.returncode == 0, rendered.stderr[-2000:]
    assert [line for line in rendered.stderr.splitlines() if ":CONSOLE" in line] == []
    dom = rendered.stdout
    for section in ("claims", "runs", "readings", "figures", "findings", "provenance"):
        assert f'<h2 id="{section}">' in dom, section
    return dom, page


def test_a_review_page_renders_offline_with_its_claims_runs_figures_findings_and_provenance(tmp_path):
    dom, page = _review_dom("cho-saul2009", tmp_path)
    assert '<img src="figures/theorems.png"' in dom and (page.parent / "figures" / "theorems.png").is_file()
    assert "Review: Cho and Saul" in dom and 'href="runs/index.html"' in dom
    assert "thmcheck check dual-kernel --fidelity quick --seed " in dom


@pytest.mark.slow
@pytest.mark.parametrize("key", [paper.key for paper in PAPERS])
def test_every_papers_review_page_renders_offline_with_its_sections(key, tmp_path):
    """The default suite renders one paper's page (above); on request, every paper's, at quick fidelity (the eleven
    took 9 minutes on two workers, 16 minutes of CPU, most of it the three paper figures): each finds its sections,
    and a discussed paper's page its ledger's claims."""
    from theorems.ledger import has_ledger, ledger

    dom, _ = _review_dom(key, tmp_path)
    assert re.search(r'<img src="figures/[^"]+\.png"', dom)
    if has_ledger(key):
        assert all(f"<td>{claim.label}</td>" in dom for claim in ledger(key).claims)

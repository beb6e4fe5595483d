"""Reports: the HTML page has the verdict table, one section per theorem and existing figure files."""

from html.parser import HTMLParser
from pathlib import Path

import pytest

from checkers.cli import main
from checkers.report import build_report
from checkers.sweep import plan, sweep
from theorems.errors import InvalidInput


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.images, self.sections, self._rows = [], [], [], None

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        if tag == "table":
            self._rows = []
            self.tables.append((attributes.get("class"), self._rows))
        elif tag == "tr" and self._rows is not None:
            self._rows.append(attributes.get("class"))
        elif tag == "img":
            self.images.append(attributes["src"])
        elif tag == "section":
            self.sections.append(attributes["id"])


def _parse(page: Path) -> _Page:
    parser = _Page()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_report_from_a_store(tmp_path):
    store = tmp_path / "s.sqlite"
    sweep(plan("dual-kernel", {"rho": ["0.2", "0.8"], "activation": ["relu", "tanh"]}, 2), store,
          executor="serial", progress=False)
    sweep(plan("dual-kernel", {"rho": ["0.5"]}, 1, overrides={"c1": "0.51"}), store, executor="serial",
          progress=False)
    page = build_report(tmp_path / "out", store=store)
    parsed = _parse(page)
    verdicts = dict(parsed.tables)["verdicts"]
    # header, then the theorem as stated (passing), then the conjecture c1 = 0.51 apart (rejected, not red):
    # a rejected conjecture is the check working, never "the theorem fails"
    assert verdicts == [None, "pass", "other"]
    text = page.read_text(encoding="utf-8")
    assert "conjecture c1=51/100" in text and "rejected" in text
    assert "(predicted , observed )" not in text  # a prediction without numbers says why, in words
    evidence = [rows for kind, rows in parsed.tables if kind == "evidence"]
    assert [len(rows) for rows in evidence] == [1 + 8, 1 + 1] and "fail" not in evidence[1]
    assert parsed.sections == ["dual-kernel"] and parsed.images
    for source in parsed.images:
        assert (page.parent / source).is_file() and (page.parent / source).stat().st_size > 1000


def test_report_from_fresh_checks_and_errors(tmp_path, capsys):
    assert main(["report", "population-loss", "nc1-bound", "--out", str(tmp_path / "fresh")]) == 0
    parsed = _parse(tmp_path / "fresh" / "index.html")
    assert parsed.sections == ["nc1-bound", "population-loss"]
    assert dict(parsed.tables)["verdicts"] == [None, "pass", "pass"]
    with pytest.raises(InvalidInput, match="no store"):
        build_report(tmp_path / "x", store=tmp_path / "missing.sqlite")
    assert main(["report", "--out", str(tmp_path / "y")]) == 2

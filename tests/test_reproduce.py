"""checkers.reproduce and `thmcheck reproduce`: a paper's figure setting as PNG and JSON."""

import json

import pytest

from checkers import registry
from checkers.cli import main
from checkers.reproduce import FIGURES


def test_every_figure_is_set_inside_its_theorem_s_assumptions():
    for figure in FIGURES.values():
        theorem = registry.checker(figure.theorem).theorem
        names = {p.name for p in theorem.predictions}
        assert set(figure.predictions) <= names
        drawn = [name for _, series in figure.panel_list() for name, _ in series]
        assert sorted(drawn) == sorted(figure.predictions)  # each prediction on exactly one panel
        for value in figure.values:
            instance = theorem.instance({**figure.fixed, figure.axis: value})
            assert not instance.assumption_failures(), (figure.theorem, value)


@pytest.mark.slow  # about 24 s of runs
def test_the_bbp_figure_draws_the_theory_and_the_runs(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "figures"
    # at learning rate 8 quick fidelity resolves the spike overlap's 5% (at 4 it never does)
    code = main(["reproduce", "spike-outlier", "--out", str(out), "--fidelity", "quick", "--seeds", "1",
                 "--values", "1,8", "--executor", "serial"])
    assert code == 3  # below the threshold nothing applies: undecided, as `check` reads it
    data = json.loads((out / "spike-outlier.json").read_text())
    assert [(run["learning_rate"], run["outcome"]) for run in data["runs"]] == [(1.0, "inconclusive"), (8.0, "pass")]
    assert data["fidelity"] == "quick" and data["values"] == ["1", "8"] and data["axis"] == "learning_rate"
    assert "this project's simulation at the paper's setting" in data["caption"]
    overlap = data["predictions"]["spike-overlap"]
    assert (out / overlap["figure"]).stat().st_size > 10_000
    # the two overlaps on one panel, in the paper's notation, as PNG and SVG (each a point claim: the band is the
    # test's resolution around the theory)
    assert overlap["figure"] == data["predictions"]["teacher-overlap"]["figure"] == \
        "spike-outlier-panel-overlap-of-u-1-w-1.png"
    vector = (out / overlap["vector"]).read_text()
    for words in ("eta, the step size", "overlap of u_1(W_1)", "theory (with zeta/|zeta|)",
                  "theory (with beta_*)", "theory +- the test's resolution (with beta_*)",
                  "simulation, 95% interval (with zeta/|zeta|)"):
        assert f"<!-- {words}" in vector or words in vector, words
    assert [point["x"] for point in overlap["points"]] == [8.0]  # below the threshold nothing is claimed or read
    theory = overlap["theory"]
    assert theory[0]["x"] == 1.0 and theory[-1]["x"] == 8.0
    assert not theory[0]["tested"] and theory[-1]["tested"]  # below the BBP threshold at eta = 1, above at 8
    assert theory[0]["value"] == 0 < theory[-1]["value"]
    printed = capsys.readouterr().out
    assert str(out / overlap["figure"]) in printed and "learning_rate = 8: pass" in printed
    assert "2 runs: 1 inconclusive, 1 pass" in printed
    again = main(["reproduce", "spike-outlier", "--out", str(out), "--fidelity", "quick", "--seeds", "1",
                  "--values", "1,8", "--executor", "serial", "--json"])
    assert again == 3 and json.loads(capsys.readouterr().out)["predictions"]["spike-overlap"]["points"] == \
        overlap["points"]  # resumed from the store: the same numbers


def test_what_it_cannot_draw_is_refused_in_a_line(tmp_path, capsys):
    assert main(["reproduce", "nc1-bound", "--out", str(tmp_path)]) == 2
    assert "giant-step-risk" in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    assert main(["reproduce", "spike-outlier", "--out", str(tmp_path / "file")]) == 2
    assert main(["reproduce", "spike-outlier", "--out", str(tmp_path), "--values", " , "]) == 2


def test_an_interrupted_figure_says_what_it_kept_and_how_to_resume(tmp_path, capsys, monkeypatch):
    """Ctrl-C after the first of the figure's two runs: exit 130, and one line saying how many runs the figure's store
    kept and the command that resumes there."""
    from checkers import reproduce

    real_sweep = reproduce.sweep

    def interrupted_after_one(tasks, store, **options):
        real_sweep(tasks[:1], store, **options)
        raise KeyboardInterrupt

    monkeypatch.setattr(reproduce, "sweep", interrupted_after_one)
    out = tmp_path / "figures"
    arguments = ["reproduce", "spike-outlier", "--out", str(out), "--fidelity", "quick", "--seeds", "1", "--values",
                 "1,4", "--executor", "serial"]
    assert main(arguments) == 130
    error = capsys.readouterr().err
    assert f"stopped with 1 of 2 tasks stored in {out / 'runs.sqlite'}" in error
    assert "the same command resumes there: thmcheck reproduce spike-outlier --out" in error
    assert error.count("thmcheck:") == 1, error  # the one line says it was interrupted


def test_the_caption_says_extrapolated_only_where_a_drawn_prediction_is():
    """mixture-equivalence's figure draws the gaps at n = 500, read as they are, while its limits beside them are
    extrapolated: its caption must not say that its points are extrapolations."""
    from types import SimpleNamespace

    from checkers.reproduce import _extrapolation

    predictions = [SimpleNamespace(name="train-gap", method="paired train gaps at n = m = k: n = 125: -0.0024 +- "
                                   "0.0028 (320 draws); n = 250: -0.0047 +- 0.002 (160 draws); n = 500: -0.0018 +- "
                                   "0.0014 (80 draws); extrapolated as L + B n^-e, 0.5 <= e <= 2, read at e = 1"),
                   SimpleNamespace(name="train-gap-at-500", method="at n = m = k = 500 (80 draws), not extrapolated"),
                   SimpleNamespace(name="spike-overlap", method="d = 800: +0.714 +- 0.0012 (192 draws); d = 1600: "
                                   "+0.710 +- 0.0012 (96 draws); extrapolated as L + B d^-e, 0.25 <= e <= 1")]
    records = [{"verdict": SimpleNamespace(predictions=predictions)}]
    assert _extrapolation(records, ("train-gap-at-500",)) == ""
    # the size a reading is extrapolated in is its own: n for the mixture's gaps, d for the spike's overlap
    said = "; each point extrapolated to {0} -> infinity from {0} = {1}"
    assert _extrapolation(records, ("train-gap",)) == said.format("n", "125, 250, 500")
    assert _extrapolation(records, ("spike-overlap",)) == said.format("d", "800, 1600")

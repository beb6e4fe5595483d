"""checkers.review and `thmcheck review`: the checks a paper's review runs, what each run says of its claim, the
pages it writes and resumes, and the inputs it refuses."""

import json

import pytest

from checkers.cli import main
from checkers.review import ReviewCheck, _run_words, fidelity_of, review_checks, run_review
from checkers.review_figures import reading
from checkers.store import ResultStore
from theorems.ledger import ledger


def test_a_review_runs_the_papers_theorems_and_every_distinct_check_of_its_ledger():
    checks = review_checks("zhou-ge2024", "quick")
    points = [(c.theorem, dict(c.parameters), c.mutant) for c in checks]
    assert points[:3] == [("local-recovery", {}, None), ("random-features-floor", {}, None),
                          ("plain-recovery", {}, None)]
    listed = {(check.theorem, tuple(sorted(check.parameters.items())), check.mutant or None)
              for claim in ledger("zhou-ge2024").claims for check in claim.checks}
    assert {(t, tuple(sorted(p.items())), m) for t, p, m in points} >= listed
    assert len(points) == len({(t, tuple(sorted(p.items())), m) for t, p, m in points})  # each once
    local = next(c for c in checks if c.theorem == "local-recovery" and not c.parameters and not c.mutant)
    assert {"e1", "e2", "e12"} <= set(local.claims)


def test_paper_fidelity_runs_a_check_at_its_paper_scale_where_it_declares_one_else_at_default():
    assert fidelity_of("giant-step-risk", "paper") == "paper"
    assert fidelity_of("dual-kernel", "paper") == "default"  # its default stands for its source's scale
    assert fidelity_of("gaussian-equivalence", "paper") == "paper"
    assert fidelity_of("mixture-means", "paper") == "default"  # short of its source's scale: default
    assert fidelity_of("mixture-means", "quick") == "quick"


@pytest.mark.parametrize("mutant, expected_failure, outcome, answered", [
    (None, False, "pass", True), (None, False, "fail", False), (None, False, "inconclusive", False),
    ("a-wrong-version", False, "fail", True), ("a-wrong-version", False, "pass", False),
    (None, True, "fail", True), (None, True, "pass", False)])
def test_a_mutant_answers_its_claim_by_being_rejected_and_a_known_failure_by_failing(mutant, expected_failure,
                                                                                      outcome, answered):
    check = ReviewCheck("dual-kernel", (), mutant, "quick", ("x1",))
    assert _run_words(check, outcome, expected_failure)[1] is answered


def test_the_pages_say_each_run_with_the_command_that_reruns_it_and_a_rerun_resumes(tmp_path):
    page = run_review("cho-saul2009", tmp_path / "out", fidelity="quick", workers=1, progress=False)
    review = json.loads((tmp_path / "out" / "review.json").read_text())
    assert [run["theorem"] for run in review["runs"]] == ["dual-kernel", "population-loss"]
    assert all(run["outcome"] == "pass" and run["as_expected"] for run in review["runs"])
    seed = review["runs"][0]["seed"]
    assert review["runs"][0]["command"] == f"thmcheck check dual-kernel --fidelity quick --seed {seed}"
    assert review["runs"][0]["calibration"]["current"]
    calibration = review["runs"][0]["calibration"]
    said = (f"at {calibration['fidelity']} fidelity over {calibration['seeds']} seeds ({calibration['measured_on']}, "
            f"tree {calibration['tree']}): as stated passed {calibration['passed']} of {calibration['runs']}")
    assert said in (tmp_path / "out" / "review.md").read_text() and said in page.read_text()
    text = (tmp_path / "out" / "review.md").read_text()
    assert "no peer discussion of this paper is in the project" in text and "## Provenance" in text
    readings = review["readings"]
    assert len(readings) == sum(p["observed"] is not None for run in review["runs"] for p in run["predictions"])
    assert all(row["interval"][0] <= row["reading"] <= row["interval"][1] for row in readings)
    assert "## Readings" in text and "| prediction | claimed | reading [95%] | resolution (basis) |" in text
    assert all(row["basis"] for row in readings) and f"({readings[0]['basis']}) |" in text
    (figure,) = review["figures"]
    assert figure["claim"] == "theorems" and figure["rows"] == sum(len(run["predictions"]) for run in review["runs"])
    assert (tmp_path / "out" / figure["png"]).is_file() and (tmp_path / "out" / figure["svg"]).is_file()
    assert f"]({figure['png']})" in text
    html = page.read_text()
    assert 'href="runs/index.html"' in html and (tmp_path / "out" / "runs" / "index.html").is_file()
    assert "<script" not in html and "http" not in html.replace('href="runs/index.html"', "")
    with ResultStore(tmp_path / "out" / "review.sqlite", readonly=True) as store:
        first = [(r.task_key, r.finished_at) for r in store.records()]
    run_review("cho-saul2009", tmp_path / "out", fidelity="quick", workers=1, progress=False)
    with ResultStore(tmp_path / "out" / "review.sqlite", readonly=True) as store:
        assert [(r.task_key, r.finished_at) for r in store.records()] == first  # nothing rerun


def test_a_reading_is_placed_in_resolutions_from_its_claim_on_the_side_a_bound_holds():
    """A point claim at 0 with the resolution at 1; a lower bound's reading at its distance above it; an upper
    bound's mirrored; a mutant's claim where its shift puts it; no reading, no row."""
    point = reading({"observed": 1.02, "resolution": 0.01, "interval": [1.0, 1.0], "standard_error": 0.005,
                     "degrees_of_freedom": float("inf"), "systematic": 0.001, "mutant_shifts": {"off": 0.05}})
    assert point["side"] == "point" and point["position"] == pytest.approx(2)
    assert point["half_width"] == pytest.approx((1.959964 * 0.005 + 0.001) / 0.01, rel=1e-5)
    assert point["mutants"] == {"off": pytest.approx(5)}
    lower = reading({"observed": 0.3, "resolution": 0.1, "interval": [0.0, float("inf")]})
    upper = reading({"observed": 0.3, "resolution": 0.1, "interval": [float("-inf"), 0.5]})
    assert (lower["side"], lower["position"]) == ("at least", pytest.approx(3))
    assert (upper["side"], upper["position"]) == ("at most", pytest.approx(2))
    assert reading({"observed": None, "resolution": 0.1, "interval": [0, 0]}) is None


def test_a_mutants_readings_say_rejected_not_fail():
    from checkers.review import readings

    prediction = {"name": "p", "observed": 1.0, "standard_error": 0.0, "systematic": 0.0, "interval": [2.0, 2.0],
                  "resolution": 0.1, "outcome": "fail"}
    run = {"theorem": "t", "parameters": {}, "mutant": "m", "claims": ["x1"], "predictions": [prediction]}
    (row,) = readings({"runs": [run]})
    assert row["outcome"] == "rejected" and row["claimed"] == "2" and row["interval"] == [1.0, 1.0]
    # one vocabulary with the terminal and the report (`checkers.outcome.reading`): a pass of a conjecture or a
    # mutant is "not rejected", an inconclusive reading is inconclusive under any claim
    def said(outcome, **version):
        varied = {**run, "mutant": None, "overrides": {}, **version,
                  "predictions": [{**prediction, "outcome": outcome}]}
        return readings({"runs": [varied]})[0]["outcome"]
    assert [said("pass"), said("pass", overrides={"c1": "0.5"}), said("pass", mutant="m")] == \
        ["pass", "not rejected", "not rejected"]
    assert {said("inconclusive"), said("inconclusive", overrides={"c1": "0.5"}), said("inconclusive", mutant="m")} \
        == {"inconclusive"}


def test_a_referees_values_apply_where_a_theorem_has_the_name_and_make_conjectures():
    """--param replaces the ledger's value in every check whose theorem has the parameter (two points that become one
    are merged, with both claims); --set makes the runs of theorems with that constant conjectures; a name no theorem
    of the review has is refused."""
    from theorems.errors import InvalidInput

    plain = review_checks("demir-dogan2025", "quick")
    moved = review_checks("demir-dogan2025", "quick", parameters={"beta": "0.9"})
    spikes = [c for c in moved if c.theorem == "mixture-spike" and not c.mutant]
    assert all(dict(c.parameters)["beta"] == "0.9" for c in spikes) and len(moved) < len(plain)
    assert {"c2", "c6"} <= {label for c in spikes for label in c.claims}
    conjecture = review_checks("cho-saul2009", "quick", overrides={"c1": "0.51"})
    assert [(c.theorem, c.overrides) for c in conjecture] == [("dual-kernel", (("c1", "0.51"),)),
                                                               ("population-loss", ())]
    words, answered = _run_words(conjecture[0], "fail", False)
    assert words == "conjecture c1=0.51 rejected" and answered
    assert "--set c1=0.51" in conjecture[0].command(7)
    with pytest.raises(InvalidInput, match="nosuch"):
        review_checks("cho-saul2009", "quick", overrides={"nosuch": "1"})


@pytest.mark.parametrize("arguments, fragment", [
    (["review", "nosuch", "--out", "{tmp}/out"], "unknown paper"),
    (["review", "cho-saul2009", "--out", "{tmp}/a-file"], "is a file"),
    (["review", "cho-saul2009", "--out", "{tmp}/out", "--store", "{tmp}/a-file"], "cannot open the store"),
    (["review", "cho-saul2009", "--out", "{tmp}/out", "--fidelity", "huge"], "invalid choice"),
    (["review", "cho-saul2009", "--out", "{tmp}/out", "--set", "nosuch=1"], "neither a parameter nor a constant"),
    (["review", "cho-saul2009", "--out", "{tmp}/out", "--fidelity", "quick", "--scheduler", "tcp://127.0.0.1:9"],
     "no dask scheduler answered"),
])
def test_bad_input_is_refused_in_one_line_with_exit_2(tmp_path, capsys, arguments, fragment):
    (tmp_path / "a-file").write_text("not a store")
    code = main([word.format(tmp=tmp_path) for word in arguments])
    error = capsys.readouterr().err
    assert code == 2 and fragment in error
    assert len([line for line in error.splitlines() if line.startswith("thmcheck: error")]) == 1


def test_a_review_on_a_dask_cluster_reads_what_the_local_processes_read(tmp_path, capsys):
    """`--scheduler local` (or a running scheduler's address) runs the review's tasks on dask; each run's seed comes
    from its identity, so the readings are the serial run's."""
    assert main(["review", "cho-saul2009", "--out", str(tmp_path / "serial"), "--fidelity", "quick", "--workers",
                 "1"]) == 0
    assert main(["review", "cho-saul2009", "--out", str(tmp_path / "dask"), "--fidelity", "quick", "--scheduler",
                 "local", "--workers", "1"]) == 0
    serial, dask = (json.loads((tmp_path / name / "review.json").read_text())["readings"]
                    for name in ("serial", "dask"))
    assert dask == serial and serial


def test_a_papers_figure_setting_is_drawn_beside_its_claims_with_the_command_that_draws_it_at_default(
        tmp_path, monkeypatch):
    """Where `thmcheck reproduce` has the paper's figure (Ba, Cui, Demir and Dogan), the review draws it at quick
    fidelity into paper-figures/ID (resumable) and the pages show it; here a two-point figure of dual-kernel stands
    in for one of Cho and Saul, so that the test runs in seconds."""
    from checkers import reproduce

    monkeypatch.setitem(reproduce.FIGURES, "dual-kernel", reproduce.Figure(
        theorem="dual-kernel", paper="a stand-in figure", axis="rho", values=("0.3", "0.6"),
        predictions=("monte-carlo",), seeds=1))
    page = run_review("cho-saul2009", tmp_path / "out", fidelity="quick", workers=1, progress=False)
    review = json.loads((tmp_path / "out" / "review.json").read_text())
    (figure,) = review["paper_figures"]
    assert figure["theorem"] == "dual-kernel" and figure["fidelity"] == "quick" and figure["runs"] == {"pass": 2}
    assert figure["at_default"] == "thmcheck reproduce dual-kernel --out DIR"
    assert (tmp_path / "out" / figure["png"]).is_file() and (tmp_path / "out" / figure["svg"]).is_file()
    assert f'<img src="{figure["png"]}"' in page.read_text()
    assert f"]({figure['png']})" in (tmp_path / "out" / "review.md").read_text()


def test_a_measured_finding_comes_with_the_commands_that_rerun_its_claims_runs(tmp_path, monkeypatch):
    """Zhou and Ge's review cut to its first check (local-recovery at its defaults, claims e1, e2 and e12), so that the
    test runs in seconds: e1's finding names that run's command; e3's, whose run was cut, names none."""
    from checkers import review

    first = review_checks("zhou-ge2024", "quick")[0]
    monkeypatch.setattr(review, "review_checks", lambda *arguments, **options: [first])
    run_review("zhou-ge2024", tmp_path / "out", fidelity="quick", workers=1, progress=False)
    written = json.loads((tmp_path / "out" / "review.json").read_text())
    findings = {finding["claim"]: finding for finding in written["findings"]}
    (run,) = written["runs"]
    assert findings["e1"]["command"] == run["command"] and findings["e3"]["command"] == ""
    text = (tmp_path / "out" / "review.md").read_text()
    assert f"(`{run['command']}`)" in text

"""Verdicts in words: what a pass says about a loose inequality and about an improbable but allowed discrepancy."""

from checkers.verdict import PredictionResult, Verdict, describe_tightness, format_table


def test_a_loose_inequality_says_what_its_pass_cannot_reject():
    loose = describe_tightness({"best_ratio": 0.01, "witness": "t = 3"})
    assert "loose here" in loose and "100 times smaller" in loose
    # a ratio of 0 (collapse-training's head root at horizon 1: kappa(W_L) at its bracket's centre) is loose by any
    # factor, not a division by zero (an internal error after every prediction had passed)
    assert "could be any factor smaller" in describe_tightness({"best_ratio": 0.0, "witness": "t = 0"})
    sharp = describe_tightness({"best_ratio": 0.97, "witness": "t = 3"})
    assert "loose" not in sharp
    # a known construction says how tight the inequality can get; the search's ratio is then read beside it
    assert "loose" not in describe_tightness({"best_ratio": 0.01, "witness": "x", "attainable": 1.0,
                                              "construction": "c"})


def _verdict(statistic: float, p_value: float, resolution_reason: dict | None = None) -> str:
    prediction = PredictionResult(name="x", kind="limit", statement="s", outcome="pass", predicted=1.0,
                                  predicted_interval=(1.0, 1.0), observed=1.0 + 0.006 * statistic,
                                  standard_error=0.006, samples=10, distance=0.006 * statistic, statistic=statistic,
                                  p_value=p_value, detectable=0.04, resolution=0.05, false_fail_rate=1e-6,
                                  resolution_reason=resolution_reason)
    return Verdict(theorem="t", title="T", provenance="paper", outcome="pass", predictions=(prediction,),
                   parameters={}).explain()


def test_a_pass_says_when_its_estimate_lies_improbably_far_from_the_prediction():
    assert "note: off by 3.7 standard errors (p = 0.0002)" in _verdict(3.7, 2e-4)
    assert "note:" not in _verdict(1.0, 0.32)


def test_the_resolution_is_printed_once_with_its_reason_where_it_has_one():
    reasoned = _verdict(1.0, 0.32, {"basis": "nearest-error", "reason": "a factor 2 lies two resolutions away"})
    assert reasoned.count("resolution 0.05") == 1
    assert "resolution 0.05 (basis: nearest error): a factor 2 lies two resolutions away" in reasoned
    assert _verdict(1.0, 0.32).count("(resolution 0.05)") == 1


def test_a_verdict_comes_back_from_its_dict():
    prediction = PredictionResult(name="x", kind="limit", statement="s", outcome="pass", predicted=1.0,
                                  predicted_interval=(1.0, float("inf")), observed=1.1, standard_error=0.01,
                                  samples=10, distance=0.0, detectable=0.04, resolution=0.05, false_fail_rate=1e-6,
                                  power={"m": 1.0}, tightness={"best_ratio": 0.5, "witness": "w"})
    verdict = Verdict(theorem="t", title="T", provenance="paper", outcome="pass", predictions=(prediction,),
                      parameters={"a": "1"}, overrides={"c": "2"}, assumption_failures=(("n", "why"),), seed=3,
                      fidelity="quick", mutant="m", expected_failure="known")
    again = Verdict.from_dict(verdict.to_dict())
    assert again == verdict and again.to_dict() == verdict.to_dict()
    assert again.predictions[0].predicted_interval[1] == float("inf")


def test_a_conjecture_reads_rejected_or_not_and_says_when_the_run_cannot_tell_it_from_the_statement():
    """mu1* = 0.61 against the stated 0.6057 moves the claim by 0.0032, under what a quick run detects: "not
    rejected" says nothing between the two, and the terminal says so; 0.8 is rejected, in the same words."""
    from checkers import registry
    from checkers.engine import run_check

    checker = registry.checker("spike-alignment")
    near = run_check(checker, overrides={"mu1_star": "0.61"}, fidelity="quick")
    (overlap,) = near.predictions
    assert near.reading == "not rejected" and overlap.indistinguishable and 0 < overlap.from_stated < overlap.detectable
    assert "cannot tell the conjecture from the statement" in near.explain() and ": pass" not in near.explain()
    far = run_check(checker, overrides={"mu1_star": "0.8"}, fidelity="quick")
    assert far.reading == "rejected" and not far.predictions[0].indistinguishable
    assert "teacher-overlap: rejected" in format_table([far]) and "fail" not in format_table([far])
    stated = run_check(checker, fidelity="quick")
    assert stated.predictions[0].from_stated is None and "teacher-overlap: pass" in format_table([stated])

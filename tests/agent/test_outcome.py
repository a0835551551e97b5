"""The outcome record's wording: what every front end shows at the end of an episode."""

from __future__ import annotations

from ascendopt.agent.outcome import CaseResult, Outcome


def _outcome(**kw: object) -> Outcome:
    base: dict[str, object] = dict(
        operator="add_custom",
        episode="e1",
        status="suggestion",
        reason="",
        evaluations=12,
        budget=12,
        backend="cpu-twin",
        kernel_rewriting="skipped",
        kernel_note="skipped: no LLM configured (set ASCENDOPT_LLM_BASE_URL …)",
    )
    return Outcome.model_validate({**base, **kw})


def test_a_regression_is_marked_in_the_headline_title_and_case_line() -> None:
    o = _outcome(
        geomean=1.01,
        cases=[
            CaseResult(case="a", baseline_us=10, candidate_us=9.5, speedup=10 / 9.5),
            CaseResult(case="b", baseline_us=4, candidate_us=4.08, speedup=4 / 4.08),
            CaseResult(case="c", baseline_us=4, candidate_us=4.01, speedup=4 / 4.01),  # rounding, not slower
        ],
    )
    assert [c.regression for c in o.cases] == [False, True, False]
    assert o.headline == "1.01× faster (geomean of 3 cases, estimate); slower on b 0.98×"
    assert o.title == "1.01× faster, slower on 1 of 3 cases (estimate)"
    assert "add_custom" not in o.headline + o.title  # the caller names the operator, once
    assert "▼ slower" in o.details[1] and "▼" not in o.details[2]
    assert "durations: estimate, on cpu-twin" in o.details
    assert o.model_dump()["cases"][1]["regression"] is True  # on the wire too


def test_a_measured_case_within_its_noise_band_is_no_regression() -> None:
    c = CaseResult(
        case="a", baseline_us=10, candidate_us=10.2, speedup=10 / 10.2, noise=0.03, kind="measured"
    )
    assert not c.regression


def test_no_gain_says_why_and_that_kernel_rewriting_was_skipped() -> None:
    o = _outcome(status="no_gain", reason="no candidate beat the baseline beyond the noise band (6 tried)")
    assert o.headline == (
        "no gain: no candidate beat the baseline beyond the noise band (6 tried); "
        "kernel rewriting skipped: no LLM configured"
    )
    assert o.title == "no gain"
    ran = _outcome(status="no_gain", reason="x", kernel_rewriting="ran", kernel_note="on: model m")
    assert "skipped" not in ran.headline and "kernel rewriting: on: model m" in ran.details


def test_cancelled_and_failed_read_differently_from_no_gain() -> None:
    assert _outcome(status="cancelled", evaluations=5, reason="no candidate beat").headline == (
        "cancelled after 5 of 12 evaluations; no suggestion"
    )
    assert _outcome(status="failed", reason="the operator fails verification").headline.startswith("failed: ")

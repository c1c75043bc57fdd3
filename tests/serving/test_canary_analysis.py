"""Canary analysis: the sequential pass-rate test, the guardrails and the step outcome."""

from __future__ import annotations

import json
import random
from math import sqrt

import pytest

from serving.canary_analysis import (
    Analysis,
    GuardrailError,
    Guardrails,
    Side,
    always_valid_p,
    analyse,
    answers_needed,
    confidence_sequence,
    mann_whitney_greater,
    p95,
)

GUARDRAILS = Guardrails()


def _side(
    passed: int,
    verified: int,
    *,
    requests: int | None = None,
    errors: int = 0,
    latency_ms: float | None = 100.0,
    tokens: int | None = 200,
    n_timings: int | None = None,
) -> Side:
    """A side whose latencies and lengths are steady around the given figures."""
    count = verified if n_timings is None else n_timings
    latencies = () if latency_ms is None else tuple(latency_ms + i % 7 for i in range(count))
    lengths = () if tokens is None else tuple(tokens + i % 5 for i in range(count))
    return Side(
        requests=verified + errors if requests is None else requests,
        errors=errors,
        verified=verified,
        passed=passed,
        latencies_ms=latencies,
        output_tokens=lengths,
    )


def _status(analysis: Analysis, name: str) -> str:
    return next(check.status for check in analysis.checks if check.name == name)


def test_it_passes_a_clearly_better_candidate() -> None:
    analysis = analyse(_side(40, 100), _side(80, 100), GUARDRAILS)
    assert analysis.outcome == "successful"
    assert [check.status for check in analysis.checks] == ["pass"] * 4
    assert analysis.pass_rate["difference"] == pytest.approx(0.4)
    low, high = analysis.pass_rate["ci_low"], analysis.pass_rate["ci_high"]
    assert low is not None and high is not None and 0.0 < low < 0.4 < high


def test_it_fails_a_clearly_worse_candidate_naming_the_pass_rate() -> None:
    analysis = analyse(_side(40, 100), _side(0, 100), GUARDRAILS)
    assert analysis.outcome == "failed"
    assert _status(analysis, "pass_rate") == "fail"
    assert analysis.reason.startswith("pass rate failed")
    assert "candidate 0.00 vs production 0.40" in analysis.reason


def test_it_keeps_collecting_when_equal_rates_have_few_samples() -> None:
    analysis = analyse(_side(20, 40), _side(20, 40), GUARDRAILS)
    assert analysis.outcome == "collecting"
    assert _status(analysis, "pass_rate") == "pending"
    assert "pass rate" in analysis.reason


def test_it_decides_nothing_below_min_samples() -> None:
    # Even a candidate that looks far worse is not judged on 12 and 3 answers.
    analysis = analyse(_side(12, 12), _side(0, 3), GUARDRAILS)
    assert analysis.outcome == "collecting"
    assert [check.status for check in analysis.checks] == ["pending"] * 4
    assert analysis.reason == (
        "waiting for 40 verified answers per side (production 12, candidate 3)"
    )


def test_it_fails_an_erroring_candidate_with_nothing_verified() -> None:
    production = _side(20, 40)
    early = analyse(production, Side(requests=39, errors=39), GUARDRAILS)
    assert early.outcome == "collecting"
    analysis = analyse(production, Side(requests=40, errors=40), GUARDRAILS)
    assert analysis.outcome == "failed"
    assert _status(analysis, "error_rate") == "fail"
    assert _status(analysis, "pass_rate") == "pending"
    assert analysis.reason.startswith("error rate failed")


def test_it_fails_a_candidate_that_is_much_slower() -> None:
    analysis = analyse(_side(40, 100), _side(40, 100, latency_ms=300.0), GUARDRAILS)
    assert analysis.outcome == "failed"
    assert _status(analysis, "latency_p95") == "fail"
    assert analysis.reason.startswith("latency p95 failed")


def test_it_waits_when_a_higher_p95_may_be_noise() -> None:
    guardrails = Guardrails(min_samples=6)
    production = Side(requests=6, verified=6, passed=3, latencies_ms=(100, 110, 120, 130, 140, 150))
    candidate = Side(requests=6, verified=6, passed=3, latencies_ms=(90, 100, 110, 120, 130, 400))
    analysis = analyse(production, candidate, guardrails)
    latency = next(check for check in analysis.checks if check.name == "latency_p95")
    assert latency.value == pytest.approx(400 / 150)
    assert latency.status == "pending"
    assert analysis.outcome == "collecting"


def test_it_fails_a_candidate_that_writes_much_longer_answers() -> None:
    analysis = analyse(_side(40, 100), _side(40, 100, tokens=600), GUARDRAILS)
    assert _status(analysis, "output_length") == "fail"
    assert analysis.outcome == "failed"


def test_it_is_inconclusive_at_max_samples_with_no_decision() -> None:
    analysis = analyse(_side(200, 400), _side(200, 400), GUARDRAILS)
    assert _status(analysis, "pass_rate") == "pending"
    assert analysis.outcome == "inconclusive"
    assert "400 verified candidate answers" in analysis.reason


def _naive_interval(s_a: int, n_a: int, s_b: int, n_b: int) -> tuple[float, float]:
    """The fixed-sample 95% normal interval, valid for one look only."""
    d = s_b / n_b - s_a / n_a
    p_a, p_b = (s_a + 0.5) / (n_a + 1), (s_b + 0.5) / (n_b + 1)
    half = 1.96 * sqrt(p_a * (1 - p_a) / n_a + p_b * (1 - p_b) / n_b)
    return d - half, d + half


def test_it_keeps_the_error_level_when_peeking_at_every_step() -> None:
    # 300 A/A canaries peeked every 10 answers up to 400: the always-valid interval excludes
    # 0 at some look in at most ~alpha of them; the fixed-sample interval far more often.
    rng = random.Random(7)
    sequential_errors = naive_errors = 0
    for _ in range(300):
        s_a = s_b = 0
        sequential_wrong = naive_wrong = False
        for n in range(10, 401, 10):
            s_a += sum(rng.random() < 0.5 for _ in range(10))
            s_b += sum(rng.random() < 0.5 for _ in range(10))
            _, low, high = confidence_sequence(s_a, n, s_b, n, 0.05)
            sequential_wrong = sequential_wrong or high < 0 or low > 0
            naive_low, naive_high = _naive_interval(s_a, n, s_b, n)
            naive_wrong = naive_wrong or naive_high < 0 or naive_low > 0
        sequential_errors += sequential_wrong
        naive_errors += naive_wrong
    assert sequential_errors / 300 <= 0.08
    assert naive_errors > sequential_errors
    assert naive_errors / 300 > 0.1


def test_it_agrees_between_the_p_value_and_the_interval() -> None:
    for counts in [(40, 100, 80, 100), (40, 100, 50, 100), (10, 40, 30, 60)]:
        _, low, high = confidence_sequence(*counts, 0.05)
        excludes_zero = low > 0 or high < 0
        assert (always_valid_p(*counts) < 0.05) == excludes_zero
    assert always_valid_p(50, 100, 50, 100) == 1.0


def test_it_keeps_the_interval_finite_at_zero_and_all_successes() -> None:
    difference, low, high = confidence_sequence(0, 50, 50, 50, 0.05)
    assert difference == 1.0
    assert 0.0 < low < high <= 1.0


def test_mann_whitney_sees_a_shift_and_not_its_absence() -> None:
    a = [float(x) for x in range(50)]
    assert mann_whitney_greater(a, [x + 30 for x in a]) < 1e-6
    assert mann_whitney_greater([x + 30 for x in a], a) > 0.99
    assert mann_whitney_greater(a, a) > 0.4
    assert mann_whitney_greater([], a) == 1.0
    assert mann_whitney_greater([1.0, 1.0], [1.0, 1.0]) == 1.0


def test_p95_is_the_nearest_rank() -> None:
    assert p95([]) is None
    assert p95([float(x) for x in range(1, 101)]) == 95.0
    assert p95([3.0, 1.0, 2.0]) == 3.0


def test_guardrails_round_trip_through_a_dict() -> None:
    guardrails = Guardrails(min_samples=10, max_samples=50, max_pass_drop=0.02, alpha=0.1)
    assert Guardrails.from_dict(guardrails.to_dict()) == guardrails
    assert Guardrails.from_dict(None) == Guardrails()
    assert Guardrails.from_dict({"max_samples": 100}).max_samples == 100


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        ({"max_pass_drop": 1.5}, "max_pass_drop", "must be between 0 and 1"),
        ({"max_error_rate": -0.1}, "max_error_rate", "must be between 0 and 1"),
        ({"min_samples": 4}, "min_samples", "must be at least 5"),
        ({"min_samples": 10.0}, "min_samples", "must be a whole number"),
        ({"min_samples": True}, "min_samples", "must be a whole number"),
        ({"max_samples": 20}, "max_samples", "must be at least min_samples"),
        ({"max_latency_p95_ratio": 1.0}, "max_latency_p95_ratio", "must be above 1"),
        ({"max_length_ratio": 101}, "max_length_ratio", "must be above 1"),
        ({"alpha": 0}, "alpha", "must be above 0 and at most 0.5"),
        ({"alpha": False}, "alpha", "must be a number"),
        ({"alpha": "0.05"}, "alpha", "must be a number"),
        ({"max_pass_drop": float("nan")}, "max_pass_drop", "must be a finite number"),
        ({"beta": 0.2}, "beta", "is not a known guardrail"),
    ],
)
def test_guardrails_from_dict_names_the_bad_field(
    data: dict[str, object], field: str, reason: str
) -> None:
    with pytest.raises(GuardrailError) as caught:
        Guardrails.from_dict(data)
    assert caught.value.field == field
    assert caught.value.reason.startswith(reason)


def test_analysis_to_dict_is_json() -> None:
    for production, candidate in [
        (_side(40, 100), _side(80, 100)),
        (_side(12, 12), _side(0, 3)),
        (_side(20, 40), Side(requests=40, errors=40)),
    ]:
        data = analyse(production, candidate, GUARDRAILS).to_dict()
        assert json.loads(json.dumps(data, allow_nan=False)) == data
        assert [check["name"] for check in data["checks"]] == [
            "pass_rate",
            "error_rate",
            "latency_p95",
            "output_length",
        ]


# --- How much more a step needs -------------------------------------------------------------


def _after(side: Side, more: int, pass_rate: float) -> Side:
    """``side`` after ``more`` verified answers at ``pass_rate``, timings as steady as before."""
    verified = side.verified + more
    return _side(side.passed + round(more * pass_rate), verified, errors=side.errors)


def test_it_sizes_the_readmes_undecided_five_percent_step_and_that_many_decide() -> None:
    production, candidate = _side(1197, 1330), _side(63, 70)  # 1,400 requests, 0.9 each side
    needed = answers_needed(production, candidate, GUARDRAILS, 0.05)
    assert analyse(production, candidate, GUARDRAILS).outcome == "collecting"
    assert 0 < needed.answers <= GUARDRAILS.max_samples - 70
    assert needed.requests == pytest.approx(needed.answers / 0.05, abs=1)
    m = needed.answers
    decided = analyse(_after(production, 19 * m, 0.9), _after(candidate, m, 0.9), GUARDRAILS)
    assert decided.outcome == needed.outcome == "successful"
    one_short = analyse(
        _after(production, 19 * (m - 1), 0.9), _after(candidate, m - 1, 0.9), GUARDRAILS
    )
    assert one_short.outcome == "collecting"
    assert f"needs about {m} more candidate answers" in needed.detail


def test_a_clearly_worse_candidate_needs_fewer_answers_to_fail() -> None:
    production = _side(90, 100)
    equal = answers_needed(production, _side(45, 50), GUARDRAILS, 0.5)
    worse = answers_needed(production, _side(25, 50), GUARDRAILS, 0.5)
    assert worse.outcome == "failed" and worse.answers < equal.answers
    decided = analyse(
        _after(production, worse.answers, 0.9), _after(_side(25, 50), worse.answers, 0.5),
        GUARDRAILS,
    )  # fmt: skip
    assert decided.outcome == "failed"


def test_it_counts_the_requests_the_candidates_errors_cost() -> None:
    candidate = _side(18, 20, requests=22, errors=2)  # about 1 request in 11 errors
    needed = answers_needed(_side(36, 40), candidate, GUARDRAILS, 1.0)  # shadow: a copy of all
    assert needed.requests == pytest.approx(needed.answers * 22 / 20, abs=1)


def test_a_decided_step_needs_nothing_more() -> None:
    needed = answers_needed(_side(380, 400), _side(380, 400), GUARDRAILS, 0.5)
    assert (needed.answers, needed.requests, needed.outcome) == (0, 0, "successful")


def test_rates_at_the_allowed_drop_end_inconclusive_at_max_samples() -> None:
    rails = Guardrails(max_samples=200)
    needed = answers_needed(_side(90, 100), _side(85, 100), rails, 0.5)
    assert (needed.answers, needed.outcome) == (100, "inconclusive")


def test_it_sizes_a_step_that_has_seen_nothing_yet_at_even_odds() -> None:
    # At 0.5 a side the interval is widest: 400 answers cannot tell a 5-point drop apart.
    needed = answers_needed(Side(), Side(), GUARDRAILS, 0.25)
    assert (needed.answers, needed.requests, needed.outcome) == (400, 1600, "inconclusive")
    wider = answers_needed(Side(), Side(), Guardrails(max_samples=5000), 0.25)
    assert 400 < wider.answers < 5000 and wider.outcome == "successful"


def test_it_refuses_a_share_outside_zero_to_one() -> None:
    with pytest.raises(ValueError, match="candidate_share"):
        answers_needed(Side(), Side(), GUARDRAILS, 0.0)

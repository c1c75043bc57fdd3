"""Whether a canary candidate is as good as production, decided so repeated looks are safe.

A canary sends a share of live traffic to a candidate model beside production and looks
at the figures again at every step. Looking again and again with a fixed-sample test finds
"significant" differences in pure noise (Armitage, McPherson & Rowe 1969), so the pass-rate
comparison here uses an always-valid confidence sequence: the normal-mixture mSPRT of
Johari, Pekelis & Walsh (2017, "Always valid inference"), after Robbins (1970). Its
interval holds at every step at once, so stopping at the first step that decides keeps the
error level at ``alpha`` however often the canary peeks.

Decision rules, applied by :func:`analyse` at each step:

- Nothing is decided (every check ``pending``, outcome ``collecting``) until both sides
  have at least ``min_samples`` verified answers, except the error-rate guardrail, which
  may fail as soon as the candidate has ``min_samples`` requests: a candidate that errors
  on everything has nothing verified and must still be rolled back.
- ``pass_rate``: the always-valid interval for candidate minus production verified pass
  rate. ``fail`` when its top is below ``-max_pass_drop`` (confidently worse than allowed),
  ``pass`` when its bottom is above ``-max_pass_drop`` (confidently not worse than
  allowed), else ``pending``.
- ``error_rate``: candidate errors / candidate requests. ``fail`` when the always-valid
  lower bound of that rate (the one-proportion normal mixture, centred on the observed
  rate) exceeds ``max_error_rate``; ``pass`` when the observed rate is within the limit.
- ``latency_p95``: candidate p95 / production p95 (nearest rank). ``pass`` when within
  ``max_latency_p95_ratio``; ``fail`` when above it and a one-sided Mann-Whitney test says
  the candidate is slower at ``alpha``; else ``pending``. Needs ``min_samples`` latencies
  per side.
- ``output_length``: candidate mean output tokens / production's, same pattern as latency.
  When production's mean is 0 the ratio is taken against 1 token (0 / 0 counts as 1).
- Outcome: ``failed`` when any check fails (the reason names the first), ``successful``
  when all four pass, ``inconclusive`` when the candidate has ``max_samples`` verified
  answers with neither, else ``collecting``.

Where verdicts come from (:func:`verdict_sources`): ``pool``, held-out tasks of the team's
pool replayed through the deployment and judged against their references by the verifier
the served model was trained with; ``reference_free``, real traffic (which carries no
reference) judged in a shadow canary on both sides by the same verifier's layers that need
no reference (syntax, constraints, the calibrated model judge where the verifier has one).
Only ``pool`` verdicts are counted (``COUNTED_SOURCES``): whoever sends real traffic picks
its prompts, and the security model lets nothing a request carries decide a release, so a
caller could otherwise steer a canary toward promotion or rollback by choosing prompts one
side handles worse. Reference-free verdicts are shown beside the decision, never in it.

How much more traffic a step needs (:func:`answers_needed`): the step's figures projected
forward at its observed rates (pass rates, error rate, and the share of answers each side
gets) and judged by :func:`analyse` itself, so the number is the one the decision rule
would reach, not a separate power formula.

Pure Python on purpose: no Django, no numpy; tested without a database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from math import ceil, erfc, exp, isfinite, log, sqrt
from typing import Any

COLLECTING, SUCCESSFUL, FAILED, INCONCLUSIVE = "collecting", "successful", "failed", "inconclusive"
PASS, FAIL, PENDING = "pass", "fail", "pending"

DEFAULT_TAU = 0.1
"""Spread of the normal mixing prior over the true difference (in pass-rate units).
Johari et al. pick it near the size of effect expected; 0.1 is ten points of pass rate."""
MAX_RATIO = 100.0
_LOG_LAMBDA_CAP = 700.0  # exp() overflows a float just above 709

CHECK_LABELS = {
    "pass_rate": "pass rate",
    "error_rate": "error rate",
    "latency_p95": "latency p95",
    "output_length": "output length",
}


class GuardrailError(ValueError):
    """A guardrail setting that cannot be used; ``field`` names it, ``reason`` says why."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


@dataclass(frozen=True)
class Guardrails:
    """The limits a canary candidate must stay within, checked at every step."""

    min_samples: int = 40
    """Verified answers per side at a step before any judgement."""
    max_samples: int = 400
    """Verified answers of the candidate at which a step with no decision is inconclusive."""
    max_pass_drop: float = 0.05
    """How far (absolute, 0..1) the candidate's verified pass rate may fall below production's."""
    max_error_rate: float = 0.05
    """Candidate errors / candidate requests."""
    max_latency_p95_ratio: float = 1.5
    """Candidate p95 latency / production p95 latency."""
    max_length_ratio: float = 1.5
    """Candidate mean output tokens / production's."""
    alpha: float = 0.05
    """Error level of the sequential test (and of the Mann-Whitney guardrails)."""

    def __post_init__(self) -> None:
        _check_int("min_samples", self.min_samples, 5)
        _check_int("max_samples", self.max_samples, 1)
        if self.max_samples < self.min_samples:
            raise GuardrailError("max_samples", "must be at least min_samples")
        for name in ("max_pass_drop", "max_error_rate"):
            value = _check_number(name, getattr(self, name))
            if not 0.0 <= value <= 1.0:
                raise GuardrailError(name, "must be between 0 and 1")
        for name in ("max_latency_p95_ratio", "max_length_ratio"):
            value = _check_number(name, getattr(self, name))
            if not 1.0 < value <= MAX_RATIO:
                raise GuardrailError(name, f"must be above 1 and at most {MAX_RATIO:g}")
        if not 0.0 < _check_number("alpha", self.alpha) <= 0.5:
            raise GuardrailError("alpha", "must be above 0 and at most 0.5")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Guardrails:
        """Guardrails from stored or posted settings.

        Missing keys take defaults; an unknown key or a bad value raises
        :class:`GuardrailError` naming the field. Integer fields take ints only (a bool is
        not a number); float fields take ints or floats.
        """
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise GuardrailError("guardrails", "must be an object")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise GuardrailError(str(key), "is not a known guardrail")
        return cls(**dict(data))


def _check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise GuardrailError(name, "must be a whole number")
    if value < minimum:
        raise GuardrailError(name, f"must be at least {minimum}")
    return value


def _check_number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise GuardrailError(name, "must be a number")
    if not isfinite(value):
        raise GuardrailError(name, "must be a finite number")
    return float(value)


@dataclass(frozen=True)
class Side:
    """What one side (production or candidate) did at this step of the canary."""

    requests: int = 0
    """Requests answered or failed on this side at this step."""
    errors: int = 0
    """Of those, failed (error, timeout, worker lost)."""
    verified: int = 0
    """Answers that carried something to verify against and were judged."""
    passed: int = 0
    """Of the verified, passed."""
    latencies_ms: tuple[float, ...] = ()
    output_tokens: tuple[int, ...] = ()
    free_judged: int = 0
    """Answers to real traffic judged by reference-free layers only: shown, never counted."""
    free_passed: int = 0
    """Of those, passed."""

    def __post_init__(self) -> None:
        counts = (self.requests, self.errors, self.verified, self.passed, self.free_judged,
                  self.free_passed)  # fmt: skip
        if min(counts) < 0:
            raise ValueError("counts cannot be negative")
        if self.errors > self.requests:
            raise ValueError("errors cannot exceed requests")
        if self.passed > self.verified or self.free_passed > self.free_judged:
            raise ValueError("passed cannot exceed verified")


@dataclass(frozen=True)
class Check:
    name: str
    """``pass_rate``, ``error_rate``, ``latency_p95`` or ``output_length``."""
    status: str
    """``pass``, ``fail`` or ``pending``."""
    value: float | None
    limit: float | None
    detail: str
    """One plain-English sentence with the figures."""


@dataclass(frozen=True)
class Analysis:
    outcome: str
    """``collecting``, ``successful``, ``failed`` or ``inconclusive``."""
    reason: str
    """One sentence saying why: the failed check, or what is still missing."""
    checks: tuple[Check, ...]
    pass_rate: dict[str, float | None]
    """``production``, ``candidate``, ``difference``, ``ci_low``, ``ci_high``, ``p_value``."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "reason": self.reason,
            "checks": [asdict(check) for check in self.checks],
            "pass_rate": dict(self.pass_rate),
        }


# --- The normal-mixture mSPRT -------------------------------------------------------------


def _shrunk_variance(successes: int, n: int) -> float:
    """p(1-p)/n with p = (s+0.5)/(n+1), so the variance stays above 0 at 0 or n successes."""
    p = (successes + 0.5) / (n + 1)
    return p * (1.0 - p) / n


def _mixture_half_width(variance: float, alpha: float, tau: float) -> float:
    """Half-width of the normal-mixture confidence sequence (Johari et al. 2017, eq. 12).

    The set of differences theta whose mixture likelihood ratio stays under 1/alpha:
    sqrt(V(V+tau^2)/tau^2 * (2 log(1/alpha) + log((V+tau^2)/V))).
    """
    tau2 = tau * tau
    return sqrt(
        variance
        * (variance + tau2)
        / tau2
        * (2.0 * log(1.0 / alpha) + log((variance + tau2) / variance))
    )


def confidence_sequence(
    successes_a: int, n_a: int, successes_b: int, n_b: int, alpha: float, tau: float = DEFAULT_TAU
) -> tuple[float, float, float]:
    """(difference b - a, low, high): an always-valid interval for a difference of proportions.

    Time-uniform: with probability 1 - alpha it covers the true difference at every
    sample size at once, so it may be recomputed after every new answer (normal-mixture
    mSPRT, Johari, Pekelis & Walsh 2017, "Always valid inference"; Robbins' normal
    mixture). V is the variance of the difference, p(1-p)/n per side with p shrunk to
    (s+0.5)/(n+1). With no samples on a side the interval is all of [-1, 1].
    """
    if n_a <= 0 or n_b <= 0:
        return 0.0, -1.0, 1.0
    difference = successes_b / n_b - successes_a / n_a
    variance = _shrunk_variance(successes_a, n_a) + _shrunk_variance(successes_b, n_b)
    half = _mixture_half_width(variance, alpha, tau)
    return difference, max(-1.0, difference - half), min(1.0, difference + half)


def always_valid_p(
    successes_a: int, n_a: int, successes_b: int, n_b: int, tau: float = DEFAULT_TAU
) -> float:
    """The mSPRT p-value for "no difference": min(1, 1/Lambda) at this sample size.

    Lambda = sqrt(V/(V+tau^2)) * exp(tau^2 d^2 / (2V(V+tau^2))), the normal-mixture
    likelihood ratio. It is below alpha exactly when 0 lies outside the
    :func:`confidence_sequence` at that alpha. (The fully always-valid p-value is the
    running minimum of this over the steps; a caller that keeps history can take it.)
    """
    if n_a <= 0 or n_b <= 0:
        return 1.0
    d = successes_b / n_b - successes_a / n_a
    v = _shrunk_variance(successes_a, n_a) + _shrunk_variance(successes_b, n_b)
    tau2 = tau * tau
    log_lambda = 0.5 * log(v / (v + tau2)) + tau2 * d * d / (2.0 * v * (v + tau2))
    return min(1.0, exp(-min(log_lambda, _LOG_LAMBDA_CAP)))


def _rate_lower_bound(successes: int, n: int, alpha: float, tau: float = DEFAULT_TAU) -> float:
    """Always-valid lower bound of one proportion: the one-sample normal mixture."""
    rate = successes / n
    return max(0.0, rate - _mixture_half_width(_shrunk_variance(successes, n), alpha, tau))


# --- Distribution guardrails -------------------------------------------------------------


def _normal_sf(z: float) -> float:
    return 0.5 * erfc(z / sqrt(2.0))


def mann_whitney_greater(a: Sequence[float], b: Sequence[float]) -> float:
    """One-sided p-value that values of ``b`` are stochastically greater than those of ``a``.

    Normal approximation to the Mann-Whitney U with average ranks for ties, the tie
    correction of the variance and a continuity correction of 0.5. 1.0 when either side
    is empty or every value is tied (no evidence either way).
    """
    n_a, n_b = len(a), len(b)
    if n_a == 0 or n_b == 0:
        return 1.0
    pooled = sorted([(float(x), 0) for x in a] + [(float(x), 1) for x in b])
    n = n_a + n_b
    rank_sum_b, tie_term, i = 0.0, 0.0, 0
    while i < n:
        j = i
        while j + 1 < n and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        average_rank = (i + j) / 2.0 + 1.0  # ranks i+1..j+1 share their mean
        rank_sum_b += average_rank * sum(side for _, side in pooled[i : j + 1])
        tied = j - i + 1
        tie_term += tied**3 - tied
        i = j + 1
    u_b = rank_sum_b - n_b * (n_b + 1) / 2.0
    variance = n_a * n_b / 12.0 * ((n + 1) - tie_term / (n * (n - 1)))
    if variance <= 0.0:
        return 1.0
    return _normal_sf((u_b - n_a * n_b / 2.0 - 0.5) / sqrt(variance))


def p95(values: Sequence[float]) -> float | None:
    """95th percentile by nearest rank: the ceil(0.95 n)-th smallest value; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return float(ordered[ceil(0.95 * len(ordered)) - 1])


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


# --- The checks ---------------------------------------------------------------------------


def _waiting_sentence(what: str, guardrails: Guardrails, production: int, candidate: int) -> str:
    return (
        f"waiting for {guardrails.min_samples} {what} per side "
        f"(production {production}, candidate {candidate})"
    )


def _pass_rate_figures(production: Side, candidate: Side, alpha: float) -> dict[str, float | None]:
    figures: dict[str, float | None] = dict.fromkeys(
        ("production", "candidate", "difference", "ci_low", "ci_high", "p_value")
    )
    if production.verified:
        figures["production"] = production.passed / production.verified
    if candidate.verified:
        figures["candidate"] = candidate.passed / candidate.verified
    if production.verified and candidate.verified:
        counts = (production.passed, production.verified, candidate.passed, candidate.verified)
        difference, low, high = confidence_sequence(*counts, alpha)
        figures.update(difference=difference, ci_low=low, ci_high=high)
        figures["p_value"] = always_valid_p(*counts)
    return figures


def _pass_rate_check(figures: dict[str, float | None], guardrails: Guardrails) -> Check:
    limit = -guardrails.max_pass_drop
    low, high, difference = figures["ci_low"], figures["ci_high"], figures["difference"]
    assert low is not None and high is not None and difference is not None
    detail = (
        f"candidate {figures['candidate']:.2f} vs production {figures['production']:.2f} "
        f"(difference {difference:+.2f}, always-valid {100 * (1 - guardrails.alpha):g}% CI "
        f"{low:+.2f} to {high:+.2f}; allowed drop {guardrails.max_pass_drop:.2f})"
    )
    status = FAIL if high < limit else PASS if low > limit else PENDING
    return Check("pass_rate", status, difference, limit, detail)


def _error_rate_check(candidate: Side, guardrails: Guardrails, judging: bool) -> Check:
    limit = guardrails.max_error_rate
    if candidate.requests < guardrails.min_samples:
        detail = (
            f"waiting for {guardrails.min_samples} candidate requests "
            f"(candidate {candidate.requests})"
        )
        rate = candidate.errors / candidate.requests if candidate.requests else None
        return Check("error_rate", PENDING, rate, limit, detail)
    rate = candidate.errors / candidate.requests
    lower = _rate_lower_bound(candidate.errors, candidate.requests, guardrails.alpha)
    detail = (
        f"candidate errored on {candidate.errors} of {candidate.requests} requests "
        f"(rate {rate:.3f}, always-valid lower bound {lower:.3f}, limit {limit:.3f})"
    )
    if lower > limit:
        status = FAIL
    elif judging and rate <= limit:
        status = PASS
    else:
        status = PENDING
    return Check("error_rate", status, rate, limit, detail)


def _ratio(candidate: float, production: float) -> float:
    """candidate / production; against 1 unit when production is 0 (0 / 0 counts as 1)."""
    if production > 0:
        return candidate / production
    return 1.0 if candidate <= 0 else candidate


def _distribution_check(
    name: str,
    production: Sequence[float],
    candidate: Sequence[float],
    summary: tuple[str, str],
    limit: float,
    guardrails: Guardrails,
) -> Check:
    """Ratio of a summary (p95 or mean) against its limit, a fail confirmed by Mann-Whitney."""
    label, unit = summary
    if min(len(production), len(candidate)) < guardrails.min_samples:
        what = "latencies" if name == "latency_p95" else "output lengths"
        detail = _waiting_sentence(what, guardrails, len(production), len(candidate))
        return Check(name, PENDING, None, limit, detail)
    statistic = p95 if name == "latency_p95" else _mean
    prod_value, cand_value = statistic(production), statistic(candidate)
    assert prod_value is not None and cand_value is not None
    ratio = _ratio(cand_value, prod_value)
    p_value = mann_whitney_greater(production, candidate)
    detail = (
        f"candidate {label} {cand_value:.0f} {unit} vs production {prod_value:.0f} {unit} "
        f"(ratio {ratio:.2f}, limit {limit:.2f}; Mann-Whitney p={p_value:.3g})"
    )
    if ratio <= limit:
        status = PASS
    elif p_value < guardrails.alpha:
        status = FAIL
    else:
        status = PENDING
    return Check(name, status, ratio, limit, detail)


def _pending(name: str, limit: float | None, detail: str) -> Check:
    return Check(name, PENDING, None, limit, detail)


POOL, REFERENCE_FREE = "pool", "reference_free"
COUNTED_SOURCES = frozenset({POOL})
"""The sources of verdicts a canary's decision counts: what no caller can forge."""
SOURCE_LABELS = {
    POOL: "held-out tasks, judged against their references",
    REFERENCE_FREE: "real traffic, judged without references (syntax, constraints, judge)",
}


def verdict_sources(production: Side, candidate: Side) -> list[dict[str, Any]]:
    """Each source of verdicts: how many answers of each side it judged and passed, its pass
    rates, and whether the decision counts it (``counted``) and why."""
    out = []
    for source, judged, passed in (
        (POOL, (production.verified, candidate.verified), (production.passed, candidate.passed)),
        (REFERENCE_FREE, (production.free_judged, candidate.free_judged),
         (production.free_passed, candidate.free_passed)),
    ):  # fmt: skip
        counted = source in COUNTED_SOURCES
        out.append({
            "source": source, "label": SOURCE_LABELS[source], "counted": counted,
            "why": "a reference from the team's pool: no caller can forge it" if counted else
            "shown only: a caller picks real traffic's prompts, so it never decides a release",
            "production": _source_side(judged[0], passed[0]),
            "candidate": _source_side(judged[1], passed[1]),
        })  # fmt: skip
    return out


def _source_side(judged: int, passed: int) -> dict[str, Any]:
    return {"judged": judged, "passed": passed, "pass_rate": passed / judged if judged else None}


def analyse(production: Side, candidate: Side, guardrails: Guardrails) -> Analysis:
    """Judge one step of a canary by the rules in the module docstring (``pool`` verdicts
    only: a side's reference-free verdicts are never read here)."""
    figures = _pass_rate_figures(production, candidate, guardrails.alpha)
    judging = min(production.verified, candidate.verified) >= guardrails.min_samples
    error_check = _error_rate_check(candidate, guardrails, judging)
    if judging:
        checks = (
            _pass_rate_check(figures, guardrails),
            error_check,
            _distribution_check(
                "latency_p95",
                production.latencies_ms,
                candidate.latencies_ms,
                ("p95", "ms"),
                guardrails.max_latency_p95_ratio,
                guardrails,
            ),
            _distribution_check(
                "output_length",
                production.output_tokens,
                candidate.output_tokens,
                ("mean", "tokens"),
                guardrails.max_length_ratio,
                guardrails,
            ),
        )
    else:
        waiting = _waiting_sentence(
            "verified answers", guardrails, production.verified, candidate.verified
        )
        checks = (
            _pending("pass_rate", -guardrails.max_pass_drop, waiting),
            error_check,
            _pending("latency_p95", guardrails.max_latency_p95_ratio, waiting),
            _pending("output_length", guardrails.max_length_ratio, waiting),
        )
    outcome, reason = _outcome(checks, candidate, guardrails, judging, production)
    return Analysis(outcome, reason, checks, figures)


def _outcome(
    checks: tuple[Check, ...],
    candidate: Side,
    guardrails: Guardrails,
    judging: bool,
    production: Side,
) -> tuple[str, str]:
    failed = [check for check in checks if check.status == FAIL]
    if failed:
        return FAILED, f"{CHECK_LABELS[failed[0].name]} failed: {failed[0].detail}"
    if all(check.status == PASS for check in checks):
        return SUCCESSFUL, "pass rate, error rate, latency p95 and output length all within limits"
    pending = [CHECK_LABELS[check.name] for check in checks if check.status == PENDING]
    if candidate.verified >= guardrails.max_samples:
        return INCONCLUSIVE, (
            f"reached {guardrails.max_samples} verified candidate answers with no decision "
            f"on {', '.join(pending)}"
        )
    if not judging:
        waiting = _waiting_sentence(
            "verified answers", guardrails, production.verified, candidate.verified
        )
        return COLLECTING, waiting
    first = next(check for check in checks if check.status == PENDING)
    return COLLECTING, (
        f"not yet decided on {', '.join(pending)}; {CHECK_LABELS[first.name]}: {first.detail}"
    )


# --- How much more a step needs ------------------------------------------------------------

UNSEEN_PASS_RATE = 0.5
"""The pass rate assumed for both sides before either has a verified answer."""


@dataclass(frozen=True)
class Needed:
    """How many more verified candidate answers the current step needs to be decided."""

    answers: int
    """More verified candidate answers (0: the step is decided now)."""
    requests: int
    """More requests to the deployment for those answers, at the step's share and the
    candidate's error rate."""
    outcome: str
    """What the step would then be, at today's rates: ``successful``, ``failed`` or
    ``inconclusive`` (``max_samples`` reached first)."""
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _rate(part: int, whole: int, fallback: float) -> float:
    return part / whole if whole else fallback


def _cycled(values: Sequence[float], fallback: Sequence[float], n: int) -> tuple[float, ...]:
    """``values`` (else ``fallback``, else 1.0) repeated to at least ``n`` items: the same
    p95 and mean, enough of them for a distribution check to judge."""
    base = tuple(values) or tuple(fallback) or (1.0,)
    return (base * ceil(n / len(base)))[: max(n, len(base))] if len(base) < n else base


def _grown(
    side: Side, more_ok: int, pass_rate: float, error_rate: float, other: Side, floor: int
) -> Side:
    """``side`` after ``more_ok`` more verified answers at ``pass_rate``, with the requests
    that errored on the way at ``error_rate``; latencies and lengths as observed (the other
    side's when it has none yet)."""
    more_requests = round(more_ok / (1.0 - error_rate)) if error_rate < 1.0 else more_ok
    return Side(
        requests=side.requests + more_requests,
        errors=side.errors + (more_requests - more_ok),
        verified=side.verified + more_ok,
        passed=side.passed + round(more_ok * pass_rate),
        latencies_ms=_cycled(side.latencies_ms, other.latencies_ms, floor),
        output_tokens=tuple(int(t) for t in _cycled(side.output_tokens, other.output_tokens, floor)),
    )  # fmt: skip


def answers_needed(
    production: Side, candidate: Side, guardrails: Guardrails, candidate_share: float
) -> Needed:
    """How many more verified candidate answers decide this step if both sides keep their
    observed rates. ``candidate_share`` is the fraction of requests the candidate answers
    (the step's share in a split canary, 1.0 in shadow, where production answers them all).

    Each projected step is judged by :func:`analyse`; the smallest number that decides is
    found by doubling then bisecting (the interval narrows as answers grow, so more never
    undoes a decision at fixed rates). At ``max_samples`` the step is inconclusive."""
    if not 0.0 < candidate_share <= 1.0:
        raise ValueError("candidate_share must be above 0 and at most 1")
    shared = _rate(production.passed + candidate.passed,
                   production.verified + candidate.verified, UNSEEN_PASS_RATE)  # fmt: skip
    p_a = _rate(production.passed, production.verified, shared)
    p_b = _rate(candidate.passed, candidate.verified, shared)
    e_a = min(_rate(production.errors, production.requests, 0.0), 0.99)
    e_b = min(_rate(candidate.errors, candidate.requests, 0.0), 0.99)
    # Production answers per candidate answer: the rest of the traffic in a split, all of it
    # in shadow (1.0 share), where production answers every request the candidate copies.
    ratio = 1.0 if candidate_share >= 1.0 else (1.0 - candidate_share) / candidate_share
    ratio *= (1.0 - e_a) / (1.0 - e_b)
    floor = guardrails.min_samples

    def judged(m: int) -> Analysis:
        prod = _grown(production, round(m * ratio), p_a, e_a, candidate, floor)
        cand = _grown(candidate, m, p_b, e_b, production, floor)
        return analyse(prod, cand, guardrails)

    limit = max(0, guardrails.max_samples - candidate.verified)
    low, high = 0, 1
    if judged(0).outcome != COLLECTING:
        high = 0
    else:
        while high < limit and judged(high).outcome == COLLECTING:
            low, high = high, min(limit, high * 2)
        while high - low > 1:  # judged(low) collects, judged(high) decides
            middle = (low + high) // 2
            low, high = (middle, high) if judged(middle).outcome == COLLECTING else (low, middle)
    outcome = judged(high)  # decided: a check decides, or max_samples makes it inconclusive
    requests = ceil(high / (1.0 - e_b) / candidate_share)
    detail = (
        f"needs about {high} more candidate answers ({requests} requests at "
        f"{candidate_share:.0%} to the candidate) to decide this step; at pass rates "
        f"{p_b:.2f} (candidate) and {p_a:.2f} (production) and a candidate error rate of "
        f"{e_b:.2f} it would then be {outcome.outcome}"
    )
    return Needed(high, requests, outcome.outcome, detail)

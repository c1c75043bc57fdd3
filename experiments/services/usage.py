"""Usage, cost and quotas: what runs and jobs use, what it costs, and what a team may launch.

- ``charge`` adds worker-seconds, generated tokens and judge tokens to the usage of a piece
  of work, split by family, priced at the queue's current ``CostRate`` (a site admin sets it).
  A run's totals are also kept on its row, so its page shows them live.
- ``JobMeter`` measures work that is not a run (an evaluation, a pre-flight, a serving
  replica) in the process that does it: the wall time since its last charge, and the tokens
  it was told, charged to its team under its kind on its job's queue, when it finishes (and
  as it goes, for work that lasts).
- ``UsageMeter`` measures one attempt of a run in the process that records it: the wall time
  since its last charge times the run's processes, and the step's tokens per family (from
  the completions the engine hands over), charged at every step. A run that crosses its
  budget (``budget_problem``) is paused by its recorder at the next step boundary.
- ``check_launch`` enforces the team's quota (``TeamQuota``) when a run is launched or
  resumed: runs queued or running at once, and worker-hours this calendar month (UTC).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime
from typing import Any

from django.db import transaction
from django.db.models import F, Sum
from django.utils import timezone
from rest_framework.exceptions import APIException

from crucible import jobs
from crucible.accounts.models import Team
from crucible.api.field_errors import field_errors
from training import metric_catalogue as metric
from training.interfaces import Completion

from .. import config as cfg
from ..models import CostRate, Run, RunSource, RunState, TeamQuota, Usage

TRAINING_QUEUE = "gpu"
"""Training runs are sent to the gpu queue (the route of ``experiments.jobs.RUN_TRAINING``)."""
QUEUES = ("gpu", "cpu")
ACTIVE_STATES = (RunState.QUEUED, RunState.RUNNING)
"""What counts against a team's concurrent runs: a paused run holds no worker."""
JUDGE_KIND = "model_judge"

TRAINING, EVALUATION, PREFLIGHT, GRADING, SERVING = (
    "training", "evaluation", "preflight", "grading", "serving",
)  # fmt: skip
KIND_LABELS = {
    TRAINING: "Training",
    EVALUATION: "Evaluation",
    PREFLIGHT: "Pre-flight",
    GRADING: "Difficulty grading",
    SERVING: "Serving replica hours",
}
"""What each kind of work is called on the usage page (an unknown kind shows as itself)."""


class QuotaExceeded(APIException):
    status_code = 409
    default_code = "quota_exceeded"
    default_detail = "The team's quota does not allow this."


@dataclass
class Amount:
    worker_seconds: float = 0.0
    generated_tokens: int = 0
    judge_tokens: int = 0

    def add(self, other: Amount) -> None:
        self.worker_seconds += other.worker_seconds
        self.generated_tokens += other.generated_tokens
        self.judge_tokens += other.judge_tokens


@dataclass(frozen=True)
class Rate:
    queue: str
    per_worker_hour: float = 0.0
    per_million_generated_tokens: float = 0.0
    per_million_judge_tokens: float = 0.0
    currency: str = "USD"

    def price(self, amount: Amount) -> float:
        return (
            amount.worker_seconds / 3600 * self.per_worker_hour
            + amount.generated_tokens / 1e6 * self.per_million_generated_tokens
            + amount.judge_tokens / 1e6 * self.per_million_judge_tokens
        )


def rate(queue: str) -> Rate:
    """The queue's current rate; free when no admin has set one."""
    row = CostRate.objects.filter(queue=queue).first()
    if row is None:
        return Rate(queue)
    return Rate(
        queue,
        row.per_worker_hour,
        row.per_million_generated_tokens,
        row.per_million_judge_tokens,
        row.currency,
    )


def rates() -> list[Rate]:
    """Every queue's rate: the usual queues first, then any other an admin priced."""
    priced = list(CostRate.objects.values_list("queue", flat=True))
    return [rate(queue) for queue in dict.fromkeys([*QUEUES, *priced])]


def month_start(when: datetime | None = None) -> date:
    return (when or timezone.now()).astimezone(UTC).date().replace(day=1)


# --- charging -------------------------------------------------------------------------------------


@transaction.atomic
def charge(
    team_id: int,
    queue: str,
    by_family: Mapping[str, Amount],
    *,
    run_id: int | None = None,
    kind: str = "training",
) -> float:
    """Add ``by_family`` to the usage of a run (one row per family, queue and month) or of the
    team's other work of ``kind`` (one row per family, queue and month for all its jobs); the
    cost added, at the queue's rate now."""
    price, month, now = rate(queue), month_start(), timezone.now()
    total = Amount()
    cost = 0.0
    for family, amount in by_family.items():
        added = price.price(amount)
        cost += added
        total.add(amount)
        increments = {
            "worker_seconds": F("worker_seconds") + amount.worker_seconds,
            "generated_tokens": F("generated_tokens") + amount.generated_tokens,
            "judge_tokens": F("judge_tokens") + amount.judge_tokens,
            "cost": F("cost") + added,
            "updated_at": now,
        }
        key = {
            "team_id": team_id, "run_id": run_id, "family": family, "queue": queue,
            "month": month, "kind": kind,
        }  # fmt: skip
        if not Usage.objects.filter(**key).update(**increments):
            Usage.objects.create(**key, **asdict(amount), cost=added, updated_at=now)
    if run_id is not None:
        Run.objects.filter(pk=run_id).update(
            worker_seconds=F("worker_seconds") + total.worker_seconds,
            generated_tokens=F("generated_tokens") + total.generated_tokens,
            judge_tokens=F("judge_tokens") + total.judge_tokens,
            cost=F("cost") + cost,
        )
    return cost


def judge_tokens(completion: Completion) -> int:
    """Tokens the completion's model-judge layers read (they report them in their info)."""
    layers = (completion.result.details or {}).get("layers", [])
    return sum(
        int((layer.get("info") or {}).get("tokens", 0))
        for layer in layers
        if isinstance(layer, dict) and layer.get("kind") == JUDGE_KIND
    )


class JobMeter:
    """Measures a job that is not a run (see the module doc) from its creation on: ``job`` is
    its Celery name, whose route gives the queue it is charged on."""

    def __init__(
        self,
        team_id: int,
        job: str,
        kind: str,
        family: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.team_id, self.queue, self.kind, self.family = team_id, jobs.queue_of(job), kind, family
        self.clock, self.last, self.tokens = clock, clock(), 0

    def generated(self, tokens: int) -> None:
        self.tokens += tokens

    def charge(self) -> float:
        """Charge the time since the last charge and the tokens told since; the cost added."""
        now = self.clock()
        used = Amount(now - self.last, self.tokens)
        self.last, self.tokens = now, 0
        return charge(self.team_id, self.queue, {self.family: used}, kind=self.kind)


class UsageMeter:
    """Measures one attempt of a run in the process that records it (see the module doc).

    Each rank draws an equal share of the step's prompts and the recorder sees the main
    rank's, so its per-family tokens are scaled by the number of processes.
    """

    def __init__(
        self, run: Run, processes: int = 1, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.run, self.processes, self.clock = run, processes, clock
        self.last = clock()
        self.step_amounts: dict[str, Amount] = {}
        self.shares: dict[str, float] = {"": 1.0}

    def completions(self, completions: Sequence[Completion]) -> None:
        """This process's completions of the step: the tokens of each family."""
        amounts: dict[str, Amount] = defaultdict(Amount)
        counts: dict[str, int] = defaultdict(int)
        for c in completions:
            counts[c.item.family] += 1
            amounts[c.item.family].add(
                Amount(0.0, c.tokens * self.processes, judge_tokens(c) * self.processes)
            )
        if counts:
            self.step_amounts = dict(amounts)
            self.shares = {family: n / len(completions) for family, n in counts.items()}

    def charge(self, metrics: Mapping[str, float] | None = None) -> float:
        """Charge the time since the last charge (split as the last step's completions were)
        and the step's tokens; tokens of a step without completions (SFT) go unsplit."""
        now = self.clock()
        seconds, self.last = (now - self.last) * self.processes, now
        amounts = {family: Amount(seconds * share) for family, share in self.shares.items()}
        for family, tokens in self.step_amounts.items():
            amounts.setdefault(family, Amount()).add(tokens)
        if not self.step_amounts and metrics:
            local = metrics.get(metric.TOKENS_PER_S, 0.0) * metrics.get(metric.STEP_S, 0.0)
            amounts.setdefault("", Amount()).generated_tokens += round(local) * self.processes
        self.step_amounts = {}
        return charge(self.run.team_id, TRAINING_QUEUE, amounts, run_id=self.run.pk)


# --- budgets --------------------------------------------------------------------------------------


def checked_budget(data: Any) -> dict[str, Any]:
    """A budget as the experiment config has it, or a 400 naming the field."""
    try:
        spec = cfg.parse_budget(data)
    except cfg.ConfigError as exc:
        raise field_errors(exc.errors) from exc
    return asdict(spec)


def budget_problem(run: Run, budget: Mapping[str, Any] | None = None) -> str | None:
    """Why the run may not go on under ``budget`` (default: its own), or None."""
    budget = run.budget if budget is None else budget
    hours, cost = run.worker_seconds / 3600, run.cost
    max_hours, max_cost = budget.get("max_worker_hours"), budget.get("max_cost")
    if max_hours is not None and hours >= max_hours:
        return (
            f"The run used {hours:.3g} worker-hours, its budget is {max_hours:g}: raise its "
            "budget to resume it."
        )
    if max_cost is not None and cost >= max_cost:
        currency = rate(TRAINING_QUEUE).currency
        return (
            f"The run cost {cost:.4g} {currency}, its budget is {max_cost:g} {currency}: raise "
            "its budget to resume it."
        )
    return None


def refuse_over_budget(run: Run, budget: Mapping[str, Any]) -> None:
    problem = budget_problem(run, budget)
    if problem:
        raise field_errors([("budget", problem)], code="over_budget")


# --- quotas ---------------------------------------------------------------------------------------


def check_launch(team: Team) -> None:
    """Refuse (409) a launch or resume the team's quota does not allow. Call it inside the
    launch's transaction: it locks the quota row, so two launches cannot both take the last
    slot."""
    quota = TeamQuota.objects.select_for_update().filter(team=team).first()
    if quota is None:
        return
    if quota.max_concurrent_runs is not None:
        active = _active_platform_runs(team)
        if active >= quota.max_concurrent_runs:
            raise QuotaExceeded(
                f"Team '{team.slug}' may have {quota.max_concurrent_runs} runs queued or running "
                f"at once and has {active}: wait for one to finish, pause or cancel one, or ask "
                "an admin to raise the quota."
            )
    if quota.max_worker_hours_per_month is not None:
        used = team_month(team).worker_seconds / 3600
        if used >= quota.max_worker_hours_per_month:
            raise QuotaExceeded(
                f"Team '{team.slug}' used {used:.3g} of its {quota.max_worker_hours_per_month:g} "
                "worker-hours this month: runs can start again next month, or ask an admin to "
                "raise the quota."
            )


# --- reports --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Totals:
    worker_seconds: float = 0.0
    generated_tokens: int = 0
    judge_tokens: int = 0
    cost: float = 0.0

    @property
    def worker_hours(self) -> float:
        return self.worker_seconds / 3600


SUMS = {
    "worker_seconds": Sum("worker_seconds"),
    "generated_tokens": Sum("generated_tokens"),
    "judge_tokens": Sum("judge_tokens"),
    "cost": Sum("cost"),
}


def _totals(row: Mapping[str, Any]) -> Totals:
    return Totals(**{key: row.get(key) or 0 for key in SUMS})


def team_month(team: Team, month: date | None = None) -> Totals:
    rows = Usage.objects.filter(team=team, month=month or month_start())
    return _totals(rows.aggregate(**SUMS))


def _grouped(rows: Any, field: str) -> list[dict[str, Any]]:
    """Totals per value of ``field`` (as ``key``), the costliest first."""
    return [
        {"key": row[field], **asdict(_totals(row))}
        for row in rows.values(field).annotate(**SUMS).order_by("-cost", "-worker_seconds", field)
    ]


def team_report(team: Team, month: date) -> dict[str, Any]:
    """The team's usage in ``month``: totals, by queue, kind, family and run, and its quota."""
    rows = Usage.objects.filter(team=team, month=month)
    runs = _grouped(rows.exclude(run=None), "run")
    named = Run.objects.select_related("experiment").in_bulk([row["key"] for row in runs])
    quota = TeamQuota.objects.filter(team=team).first()
    return {
        "team": team.slug,
        "month": month.strftime("%Y-%m"),
        "currency": rate(TRAINING_QUEUE).currency,
        "totals": asdict(_totals(rows.aggregate(**SUMS))),
        "by_queue": _grouped(rows, "queue"),
        "by_kind": [
            {**row, "label": KIND_LABELS.get(row["key"], row["key"])}
            for row in _grouped(rows, "kind")
        ],
        "by_family": _grouped(rows, "family"),
        "by_run": [{**row, **_run_label(named[row["key"]])} for row in runs if row["key"] in named],
        "quota": {
            "max_concurrent_runs": quota.max_concurrent_runs if quota else None,
            "active_runs": _active_platform_runs(team),
            "max_worker_hours_per_month": quota.max_worker_hours_per_month if quota else None,
            "used_worker_hours": team_month(team).worker_hours,
        },
        "rates": [asdict(r) for r in rates()],
    }


def _active_platform_runs(team: Team) -> int:
    """Runs holding or waiting for a worker: an outside run trains on its own hardware."""
    rows = Run.objects.filter(team=team, state__in=ACTIVE_STATES, source=RunSource.PLATFORM)
    return rows.count()


def _run_label(run: Run) -> dict[str, Any]:
    return {
        "run": run.pk,
        "experiment_name": run.title,
        "number": run.number,
        "state": run.state,
    }


def run_report(run: Run) -> dict[str, Any]:
    """A run's usage over every month and attempt: totals, by family and queue, its budget."""
    rows = Usage.objects.filter(run=run)
    return {
        "run": run.pk,
        "currency": rate(TRAINING_QUEUE).currency,
        "totals": asdict(
            Totals(run.worker_seconds, run.generated_tokens, run.judge_tokens, run.cost)
        ),
        "by_family": _grouped(rows, "family"),
        "by_queue": _grouped(rows, "queue"),
        "budget": {
            "max_worker_hours": run.budget.get("max_worker_hours"),
            "max_cost": run.budget.get("max_cost"),
            "problem": budget_problem(run),
        },
    }

"""Proposed labelled examples: verdicts a reviewer disputes, for the verifier's team to decide.

Real traffic (a run's completions) shows where a verifier is wrong. A reviewer flags such a
verdict; the response is proposed as a labelled example with the opposite label (known good
if the verifier refused it, known bad if it passed it). One turn of a multi-turn episode is
flagged the same way: the proposal holds the conversation up to that turn and its index, and
the label says whether the turn was fine. An editor of the verifier's team
accepts it, and it becomes a labelled example, so the versions' reported false-positive and
false-negative rates count it, or rejects it. Each decision is one conditional update: a
proposal is decided once. Every step is audited, and so reaches the team's open pages live.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from crucible.accounts.models import Team
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors
from tasks_app.models import ExampleProposal, LabelledExample, VerifierVersion

from . import verifiers

Status = ExampleProposal.Status


@dataclass(frozen=True)
class Verdict:
    """What the verifier version said about the response."""

    version_id: int
    passed: bool
    error_type: str = ""
    reward: float | None = None


@dataclass(frozen=True)
class Flag:
    """A proposal as other apps see it (beside the response it was made from)."""

    id: int
    verifier: int
    status: str
    label: str
    created_by: str | None
    created_at: datetime
    turn: int | None = None
    """The flagged turn's index in its episode's messages; None for a whole response."""

    @classmethod
    def of(cls, proposal: ExampleProposal) -> Flag:
        user = proposal.created_by
        return cls(
            proposal.pk,
            proposal.verifier_id,
            proposal.status,
            proposal.label,
            user.get_username() if user is not None else None,
            proposal.created_at,
            proposal.turn,
        )


@dataclass(frozen=True)
class Source:
    """Where the verdict was seen: ``key`` is unique per verifier (``rollout:<id>``)."""

    key: str
    label: str = ""
    path: str = ""
    field: str = "source"
    """The request field to name when the source was already proposed."""


@dataclass(frozen=True)
class Turn:
    """One turn of an episode whose verdict is disputed."""

    messages: list[dict[str, Any]]
    """The conversation up to and including the turn."""
    turn: int
    """The turn's index in ``messages`` (its last)."""


@transaction.atomic
def propose(
    user: AbstractBaseUser,
    team: Team,
    verdict: Verdict,
    *,
    response: str,
    expected: dict[str, Any],
    source: Source,
    note: str = "",
    episode: Turn | None = None,
) -> Flag:
    """Propose ``response`` with the label the verdict should have had; a 400 naming
    ``source.field`` when that source was already proposed for the verifier. For one turn of
    an episode, ``episode`` carries the conversation up to that turn and the turn's index."""
    version = VerifierVersion.objects.filter(pk=verdict.version_id, verifier__team=team).first()
    if version is None:
        why = "the verifier version that judged it is no longer available to the team"
        raise field_errors([(source.field, why)])
    label = LabelledExample.Label.BAD if verdict.passed else LabelledExample.Label.GOOD
    try:
        with transaction.atomic():
            proposal = ExampleProposal.objects.create(
                verifier=version.verifier,
                version=version,
                response=response,
                expected=expected,
                label=label,
                judged_passed=verdict.passed,
                judged_error_type=verdict.error_type[:40],
                judged_reward=verdict.reward,
                note=note,
                messages=None if episode is None else episode.messages,
                turn=None if episode is None else episode.turn,
                source=source.key,
                source_label=source.label[:200],
                source_path=source.path[:300],
                created_by=user,
            )
    except IntegrityError as exc:
        why = "this verdict is already flagged for the verifier's team to review"
        raise field_errors([(source.field, why)], code="unique") from exc
    changes: dict[str, Any] = {"label": label, "source": source.key, "version": version.number}
    if episode is not None:
        changes["turn"] = episode.turn
    record(user, "verifier.example_proposed", proposal, team=team, changes=changes)
    return Flag.of(proposal)


@transaction.atomic
def accept(user: AbstractBaseUser, proposal: ExampleProposal, note: str = "") -> LabelledExample:
    """The proposal becomes a labelled example (a 400 when it was decided already, or when
    the verifier holds its most examples: then nothing changes)."""
    _decide(user, proposal, Status.ACCEPTED, note)
    example = verifiers.add_example(
        user,
        proposal.verifier,
        response=proposal.response,
        expected=proposal.expected,
        label=proposal.label,
        messages=proposal.messages,
        turn=proposal.turn,
        note=(note or proposal.note or f"from {proposal.source_label or proposal.source}")[:300],
    )
    ExampleProposal.objects.filter(pk=proposal.pk).update(example=example)
    proposal.example = example
    changes = {"label": proposal.label, "example": example.pk, "source": proposal.source}
    record(
        user, "verifier.proposal_accepted", proposal, team=proposal.verifier.team, changes=changes
    )
    return example


@transaction.atomic
def reject(user: AbstractBaseUser, proposal: ExampleProposal, note: str = "") -> ExampleProposal:
    _decide(user, proposal, Status.REJECTED, note)
    changes = {"label": proposal.label, "source": proposal.source}
    record(
        user, "verifier.proposal_rejected", proposal, team=proposal.verifier.team, changes=changes
    )
    return proposal


def _decide(user: AbstractBaseUser, proposal: ExampleProposal, status: str, note: str) -> None:
    now = timezone.now()
    decided = ExampleProposal.objects.filter(pk=proposal.pk, status=Status.PROPOSED).update(
        status=status, decided_by=user, decided_at=now, decision_note=note
    )
    if not decided:
        current = ExampleProposal.objects.get(pk=proposal.pk).status
        raise field_errors([("status", f"this proposal was already {current}")], code="decided")
    proposal.status, proposal.decided_by, proposal.decided_at = status, user, now
    proposal.decision_note = note


def of_sources(team: Team, keys: Iterable[str]) -> dict[str, Flag]:
    """The team's proposals for these source keys, by key (the newest where several
    verifiers were proposed the same source)."""
    rows = ExampleProposal.objects.filter(verifier__team=team, source__in=list(keys))
    rows = rows.select_related("created_by")
    return {p.source: Flag.of(p) for p in rows.order_by("created_at", "id")}

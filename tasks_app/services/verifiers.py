"""Verifiers: versions of a canonical spec, labelled examples, FP/FN rates, the playground."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet

from crucible.accounts.models import Team
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors
from tasks_app import verifiers as pure
from tasks_app.families.registry import load_kind
from tasks_app.models import LabelledExample, PoolTask, Verifier, VerifierVersion
from tasks_app.verifiers.layers.base import SHARE_TESTS

from .pools import extra_kinds

MAX_EXAMPLES = 100
"""Labelled examples per verifier. Evaluating and calibrating judge every one of them in the web
process, and a sandboxed layer takes about 40 ms an example (up to its timeout)."""


def default_spec(family_kind: str) -> dict[str, Any]:
    """The family kind's default verifier spec, from the kind registry with the deployment's
    own kinds (``TASK_FAMILY_KINDS``) included; UnknownKind for a kind not registered."""
    return load_kind(family_kind, extra_kinds()).default_verifier()


def checked_spec(spec: Any, *, prefix: str = "spec") -> dict[str, Any]:
    """The canonical form of ``spec``, or a 400 naming every bad field."""
    errors = pure.validate_spec(spec)
    if errors:
        raise field_errors(((e.field, e.reason) for e in errors), prefix=prefix)
    return pure.canonical(spec)


@transaction.atomic
def create_verifier(
    user: AbstractBaseUser,
    team: Team,
    *,
    name: str,
    slug: str,
    description: str = "",
    family_kind: str = "",
    spec: dict[str, Any] | None = None,
) -> Verifier:
    if spec is None and family_kind:
        spec = default_spec(family_kind)
    canonical = checked_spec(spec) if spec is not None else None
    verifier = Verifier.objects.create(
        team=team,
        name=name,
        slug=slug,
        description=description,
        family_kind=family_kind,
        created_by=user,
    )
    record(user, "verifier.created", verifier, team=team, changes={"name": name})
    if canonical is not None:
        _new_version(user, verifier, canonical, note="initial version")
    return verifier


@transaction.atomic
def create_version(
    user: AbstractBaseUser, verifier: Verifier, spec: Any, note: str = ""
) -> tuple[VerifierVersion, bool]:
    """A new immutable version, or the latest one when the spec means the same thing."""
    canonical = checked_spec(spec)
    latest = Verifier.objects.select_for_update().get(pk=verifier.pk).latest_version()
    if latest is not None and latest.spec_hash == pure.spec_hash(canonical):
        return latest, False
    return _new_version(user, verifier, canonical, note=note), True


def _new_version(
    user: AbstractBaseUser, verifier: Verifier, canonical: dict[str, Any], *, note: str
) -> VerifierVersion:
    latest = verifier.latest_version()
    version = VerifierVersion.objects.create(
        verifier=verifier,
        number=(latest.number + 1) if latest else 1,
        spec=canonical,
        spec_hash=pure.spec_hash(canonical),
        note=note,
        created_by=user,
    )
    record(
        user,
        "verifier.version_created",
        version,
        team=verifier.team,
        changes={"number": version.number, "spec_hash": version.spec_hash},
    )
    return version


def judged_examples(verifier: Verifier) -> QuerySet[LabelledExample]:
    """The examples whose label is about the verifier's verdict: a labelled turn of an
    episode is about the environment's verdict on that turn, so its rates leave it out."""
    return verifier.examples.filter(turn__isnull=True)


def example_dicts(verifier: Verifier) -> list[dict[str, Any]]:
    return [
        {"response": ex.response, "expected": ex.expected, "label": ex.label}
        for ex in judged_examples(verifier)
    ]


def evaluate(version: VerifierVersion) -> dict[str, Any]:
    """FP/FN rates of this version on the verifier's labelled examples (turns of episodes
    left out: see ``judged_examples``)."""
    examples = list(judged_examples(version.verifier))
    report = pure.evaluate_examples(version.spec, example_dicts(version.verifier))
    for item in report.get("misjudged", []):
        item["example_id"] = examples[item["index"]].id
    return report | {"version": version.number, "examples": len(examples)}


def playground(
    teams: QuerySet[Team],
    response: str,
    *,
    spec: Any = None,
    verifier_version: int | None = None,
    expected: dict[str, Any] | None = None,
    task: int | None = None,
    context: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Judge one response with an inline spec or a saved version, against inline expected
    data or a pool task's; ids are looked up among ``teams`` (the caller's) only."""
    if verifier_version is not None:
        spec = saved_spec(teams, verifier_version)
    context = caller_context(context)
    if task is not None:
        expected, context = _task_inputs(teams, task, context)
    return pure.playground(checked_spec(spec), response, expected or {}, context=context)


def caller_context(context: dict[str, Any] | None) -> dict[str, Any]:
    """A caller's context carries what layers read (a prompt), never how the sandbox runs."""
    return {k: v for k, v in (context or {}).items() if k != SHARE_TESTS}


def saved_spec(teams: QuerySet[Team], version_id: int) -> dict[str, Any]:
    version = VerifierVersion.objects.filter(pk=version_id, verifier__team__in=teams).first()
    if version is None:
        why = f"no verifier version {version_id} in your teams"
        raise field_errors([("verifier_version", why)])
    return version.spec


def _task_inputs(
    teams: QuerySet[Team], task_id: int, context: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A pool task's expected data, and its prompt for a model judge unless the context
    already names one."""
    task = PoolTask.objects.filter(pk=task_id, version__family__team__in=teams).first()
    if task is None:
        raise field_errors([("task", f"no pool task {task_id} in your teams")])
    return task.expected, {"prompt": task.prompt, **context}


@transaction.atomic
def add_example(user: AbstractBaseUser, verifier: Verifier, **fields: Any) -> LabelledExample:
    # The lock makes two concurrent adds count each other.
    if Verifier.objects.select_for_update().get(pk=verifier.pk).examples.count() >= MAX_EXAMPLES:
        why = f"a verifier holds at most {MAX_EXAMPLES} labelled examples; delete one first"
        raise field_errors([("examples", why)])
    example = LabelledExample.objects.create(verifier=verifier, **fields)
    record(
        user,
        "verifier.example_added",
        example,
        team=verifier.team,
        changes={"label": example.label},
    )
    return example


@transaction.atomic
def delete_example(user: AbstractBaseUser, example: LabelledExample) -> None:
    verifier = example.verifier
    record(
        user,
        "verifier.example_deleted",
        example,
        team=verifier.team,
        changes={"label": example.label, "verifier": verifier.name},
    )
    example.delete()


@transaction.atomic
def delete_verifier(user: AbstractBaseUser, verifier: Verifier) -> None:
    """Delete a verifier with no versions (the view refuses one that has any)."""
    record(
        user,
        "verifier.deleted",
        verifier,
        team=verifier.team,
        changes={"name": verifier.name, "slug": verifier.slug},
    )
    verifier.delete()


def calibrate(version: VerifierVersion, layer: str | None = None) -> dict[str, Any]:
    """Pick the model judge's yes-threshold that misjudges fewest labelled examples.

    The returned ``spec`` carries the threshold; saving it makes the next version.
    """
    examples = example_dicts(version.verifier)
    if not examples:
        raise field_errors(
            [("examples", "add labelled examples (good and bad) before calibrating")]
        )
    try:
        report = pure.calibrate_judge(version.spec, examples, layer=layer)
    except pure.SpecError as exc:
        raise field_errors((e.field, e.reason) for e in exc.errors) from exc
    return report | {"version": version.number, "examples": len(examples)}

"""/api/v1/registered-models/ and /api/v1/model-versions/: checkpoints registered as numbered
versions with their lineage and training format frozen; aliases, production only on a
promoted checkpoint; format drift checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from crucible.accounts.models import AuditEvent
from experiments.models import (
    Checkpoint,
    EvaluationReport,
    ModelAlias,
    ModelVersion,
    Promotion,
    Run,
)
from experiments.services import experiments, promotion
from tasks_app.families.digit_sort import prompt_template as DIGIT_TEMPLATE
from tasks_app.services import pinning
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version
from tests.experiments.test_promotion import report_on
from training.prompting import prompt_encoding

pytestmark = pytest.mark.django_db
MODELS = "/api/v1/registered-models/"
VERSIONS = "/api/v1/model-versions/"


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


@pytest.fixture
def pinned(owner, team):
    return digit_version(owner, team), digit_verifier(owner, team)


@pytest.fixture
def checkpoint(owner, team, pinned, tmp_path: Path) -> Checkpoint:
    advertise()
    version, verifier = pinned
    experiment = experiments.create_experiment(
        owner, team, name="sort-grpo", config=config_for(version, verifier)
    )
    run = Run.objects.create(experiment=experiment, team=team, number=1, created_by=owner)
    (tmp_path / "step-000040" / "model").mkdir(parents=True)
    return Checkpoint.objects.create(run=run, step=40, path=str(tmp_path / "step-000040"))


@pytest.fixture
def model(api, team) -> dict:
    response = api.post(MODELS, {"team": team.slug, "name": "sorter"}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def register(client, model: dict, checkpoint: Checkpoint):
    body = {"model": model["id"], "checkpoint": checkpoint.pk}
    return client.post(VERSIONS, body, format="json")


def promote(owner, team, checkpoint: Checkpoint) -> None:
    report = EvaluationReport.objects.get(pk=report_on(owner, team, checkpoint).pk)
    promotion.promote(owner, checkpoint, report)


def set_alias(client, version_id: int, alias: str):
    return client.post(f"{VERSIONS}{version_id}/alias/", {"alias": alias}, format="json")


def test_it_freezes_lineage_and_the_training_format(api, team, model, checkpoint, pinned):
    pool, verifier = pinned
    response = register(api, model, checkpoint)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["number"] == 1 and body["model_name"] == "sorter"
    run, experiment = checkpoint.run, checkpoint.run.experiment
    lineage = body["lineage"]
    assert lineage["run"] == {"id": run.pk, "number": 1, "source": "platform", "name": "sort-grpo"}
    assert lineage["experiment"] == {"id": experiment.pk, "name": "sort-grpo"}
    assert lineage["config_hash"] == experiment.config_hash
    assert lineage["pool_versions"] == [{"id": pool.pk, "family": "digits", "number": 1}]
    assert lineage["verifier_versions"] == [
        {"id": verifier.pk, "verifier": "exact-sort", "number": 1}
    ]
    assert lineage["promotion"] is None
    # The format is the one the training job used: the pool's prompts were rendered with the
    # family's template, the verifier's spec extracts the answer, the engine's encoding.
    used_spec = pinning.verifier_specs(team, [verifier.pk])[verifier.pk]
    task = next(pinning.version_tasks(pool.pk, pinning.TRAIN, 1))
    (family,) = body["format"]["families"]
    assert family == {"family": "digits", "prompt_template": DIGIT_TEMPLATE,
                      "extract": used_spec["extract"], "pool_version": pool.pk,
                      "verifier_version": verifier.pk}  # fmt: skip
    assert task.prompt.startswith(DIGIT_TEMPLATE.split("{")[0])
    encoding = prompt_encoding()
    assert body["format"]["chat_template"] == encoding["chat_template"]
    assert body["format"]["add_special_tokens"] == encoding["add_special_tokens"]
    # Frozen: the experiment's pool family changing its template later changes nothing.
    pool.family.prompt_template = "please sort {digits}="
    pool.family.save()
    again = api.get(f"{VERSIONS}{body['id']}/").json()
    assert again["format"]["families"][0]["prompt_template"] == DIGIT_TEMPLATE
    assert AuditEvent.objects.filter(action="model_version.registered").count() == 1
    # Registered after the change, the checkpoint still says the template its pool version's
    # prompts were written with (the version recorded it), not the family's new one.
    later = register(api, model, checkpoint).json()
    assert later["format"]["families"][0]["prompt_template"] == DIGIT_TEMPLATE


def test_version_numbers_increase_and_the_detail_nests_them(api, model, checkpoint):
    numbers = [register(api, model, checkpoint).json()["number"] for _ in range(3)]
    assert numbers == [1, 2, 3]
    detail = api.get(f"{MODELS}{model['id']}/").json()
    assert [v["number"] for v in detail["versions"]] == [3, 2, 1]
    assert api.get(MODELS).json()["results"][0]["latest_version"] == 3


def test_production_needs_a_promoted_checkpoint(api, owner, team, model, checkpoint):
    version = register(api, model, checkpoint).json()
    assert version["production_refusal"].startswith("production needs a promoted checkpoint")
    refused = set_alias(api, version["id"], "production")
    assert refused.status_code == 409
    assert "is not promoted" in fields(refused)["alias"]
    assert not ModelAlias.objects.exists()
    assert not AuditEvent.objects.filter(action="model_alias.set").exists()
    # Any other alias is free.
    assert set_alias(api, version["id"], "candidate").status_code == 200

    promote(owner, team, checkpoint)
    assert api.get(f"{VERSIONS}{version['id']}/").json()["production_refusal"] is None
    accepted = set_alias(api, version["id"], "production")
    assert accepted.status_code == 200, accepted.json()
    assert accepted.json()["number"] == 1
    aliases = api.get(f"{MODELS}{model['id']}/").json()["aliases"]
    assert {a["alias"]: a["number"] for a in aliases} == {"candidate": 1, "production": 1}
    # A version registered once the checkpoint is promoted carries the promotion in its lineage.
    later = register(api, model, checkpoint).json()
    report = Promotion.objects.get(checkpoint=checkpoint).report
    assert later["lineage"]["promotion"]["report"] == report.pk
    assert later["lineage"]["promotion"]["report_version"] == report.version


def test_a_base_model_is_registered_but_never_production(api, model):
    from experiments.catalogue import TINY_MODEL

    made = api.post(VERSIONS, {"model": model["id"], "base_model": TINY_MODEL}, format="json")
    assert made.status_code == 201, made.json()
    assert made.json()["lineage"] == {"base_model": TINY_MODEL}
    assert made.json()["format"]["families"] == []
    assert set_alias(api, made.json()["id"], "production").status_code == 409
    unknown = api.post(VERSIONS, {"model": model["id"], "base_model": "gpt-9"}, format="json")
    assert unknown.status_code == 400 and "unknown model 'gpt-9'" in fields(unknown)["base_model"]
    both = api.post(VERSIONS, {"model": model["id"]}, format="json")
    assert fields(both) == {"checkpoint": "give either checkpoint or base_model"}


def test_moving_and_removing_an_alias_is_audited(api, model, checkpoint):
    first = register(api, model, checkpoint).json()
    second = register(api, model, checkpoint).json()
    set_alias(api, first["id"], "candidate")
    set_alias(api, second["id"], "candidate")
    set_alias(api, second["id"], "candidate")  # already there: nothing to record
    moves = AuditEvent.objects.filter(action="model_alias.set").order_by("id")
    assert [e.changes for e in moves] == [
        {"alias": "candidate", "from": None, "to": 1},
        {"alias": "candidate", "from": 1, "to": 2},
    ]
    assert ModelAlias.objects.get().version_id == second["id"]
    wrong = api.delete(f"{VERSIONS}{first['id']}/alias/", {"alias": "candidate"}, format="json")
    assert wrong.status_code == 400
    gone = api.delete(f"{VERSIONS}{second['id']}/alias/", {"alias": "candidate"}, format="json")
    assert gone.status_code == 204 and not ModelAlias.objects.exists()
    removed = AuditEvent.objects.get(action="model_alias.removed")
    assert removed.changes == {"alias": "candidate", "from": 2, "to": None}


def test_a_bad_alias_or_name_is_a_400_that_saves_nothing(api, team, model, checkpoint):
    version = register(api, model, checkpoint).json()
    bad = set_alias(api, version["id"], "Prod Uction")
    assert bad.status_code == 400 and "lowercase slug" in fields(bad)["alias"]
    taken = api.post(MODELS, {"team": team.slug, "name": "sorter"}, format="json")
    assert taken.status_code == 400 and "already exists" in fields(taken)["name"]
    missing = api.post(VERSIONS, {"model": model["id"], "checkpoint": 999999}, format="json")
    assert missing.status_code == 400 and "does not exist" in fields(missing)["checkpoint"]
    assert ModelVersion.objects.count() == 1 and not ModelAlias.objects.exists()


def test_check_format_lists_the_differences(client_for, teammate, api, model, checkpoint):
    version = register(api, model, checkpoint).json()
    url = f"{VERSIONS}{version['id']}/check-format/"
    same = {"prompt_template": DIGIT_TEMPLATE, "chat_template": None, "extract": "full_text"}
    same["extract"] = version["format"]["families"][0]["extract"]
    assert api.post(url, same, format="json").json() == {"matches": True, "differences": []}
    drifted = api.post(url, {"chat_template": "chatml", "extract": "boxed"}, format="json").json()
    assert drifted["matches"] is False
    assert [d.split(":")[0] for d in drifted["differences"]] == [
        "chat format differs",
        "answer extraction differs",
    ]
    # A viewer may ask; an empty or unknown body is a 400 naming the field.
    viewer = client_for(teammate)
    assert viewer.post(url, same, format="json").status_code == 200
    assert "format" in fields(api.post(url, {}, format="json"))
    assert "colour" in fields(api.post(url, {"colour": "red"}, format="json"))


def test_a_viewer_reads_but_cannot_write_and_an_outsider_sees_nothing(
    client_for, teammate, outsider, team, api, model, checkpoint
):
    version = register(api, model, checkpoint).json()
    viewer, stranger = client_for(teammate), client_for(outsider)
    assert viewer.get(f"{MODELS}{model['id']}/").status_code == 200
    assert register(viewer, model, checkpoint).status_code == 403
    assert set_alias(viewer, version["id"], "candidate").status_code == 403
    assert viewer.post(MODELS, {"team": team.slug, "name": "x"}, format="json").status_code == 403
    assert viewer.delete(f"{MODELS}{model['id']}/").status_code == 403
    assert stranger.get(f"{MODELS}{model['id']}/").status_code == 404
    assert stranger.get(f"{VERSIONS}{version['id']}/").status_code == 404
    assert register(stranger, model, checkpoint).status_code == 404
    assert set_alias(stranger, version["id"], "candidate").status_code == 404
    check = stranger.post(
        f"{VERSIONS}{version['id']}/check-format/", {"extract": "x"}, format="json"
    )
    assert check.status_code == 404
    assert stranger.get(VERSIONS).json()["results"] == []
    assert ModelVersion.objects.count() == 1 and not ModelAlias.objects.exists()


def test_a_model_serving_production_is_not_deleted(api, owner, team, model, checkpoint):
    version = register(api, model, checkpoint).json()
    promote(owner, team, checkpoint)
    set_alias(api, version["id"], "production")
    refused = api.delete(f"{MODELS}{model['id']}/")
    assert refused.status_code == 409 and "production alias" in fields(refused)["alias"]
    api.delete(f"{VERSIONS}{version['id']}/alias/", {"alias": "production"}, format="json")
    assert api.delete(f"{MODELS}{model['id']}/").status_code == 204
    assert not ModelVersion.objects.exists()


def test_a_model_is_renamed_and_another_teams_checkpoint_is_not_registered(
    api, make_user, model, checkpoint, tmp_path
):
    from crucible.accounts import services as accounts

    renamed = api.patch(f"{MODELS}{model['id']}/", {"name": "digit-sorter"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["name"] == "digit-sorter"
    assert AuditEvent.objects.get(action="registered_model.updated").changes == {
        "changed": ["name"]
    }
    stranger = make_user("mallory")
    theirs = accounts.create_team(stranger, "Elsewhere", "elsewhere")
    other_run = Run.objects.create(
        experiment=checkpoint.run.experiment, team=theirs, number=9, created_by=stranger
    )
    foreign = Checkpoint.objects.create(run=other_run, step=1, path=str(tmp_path / "x"))
    refused = register(api, model, foreign)
    assert refused.status_code == 400
    assert fields(refused) == {"checkpoint": f"checkpoint {foreign.pk} does not exist"}
    assert not ModelVersion.objects.exists()

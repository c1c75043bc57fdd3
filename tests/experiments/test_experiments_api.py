"""/api/v1/experiments/: create (validated, frozen), clone, diff and launch, per persona."""

from __future__ import annotations

from unittest import mock

import pytest

from crucible.accounts.models import AuditEvent
from experiments.models import Experiment, Run
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def pinned(owner, team):
    advertise()
    return digit_version(owner, team), digit_verifier(owner, team)


@pytest.fixture
def sent():
    """What would go to the broker: the jobs sent, each with its arguments."""
    with mock.patch("crucible.jobs.send") as send:
        yield send


def create(client, pinned, **extra):
    version, verifier = pinned
    body = {"team": "reasoning", "name": "Sort", "config": config_for(version, verifier, **extra)}
    return client.post("/api/v1/experiments/", body, format="json")


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def test_it_creates_a_frozen_experiment_with_every_version_pinned(api, pinned):
    response = create(api, pinned)
    assert response.status_code == 201, response.json()
    body = response.json()
    version, verifier = pinned
    family = body["config"]["curriculum"]["families"][0]
    assert family == {
        "pool_version": version.pk,
        "verifier_version": verifier.pk,
        "weight": 1.0,
        "levels": [2, 3],  # every train level of the version, pinned
        "initial": None,
    }
    assert body["config"]["hyperparameters"]["learning_rate"] == 5e-4  # default, pinned
    assert len(body["config_hash"]) == 64 and body["parent"] is None and body["run_count"] == 0
    experiment = Experiment.objects.get(pk=body["id"])
    with pytest.raises(RuntimeError):
        experiment.save()
    assert AuditEvent.objects.filter(action="experiment.created").count() == 1


def test_it_stores_a_chat_format_and_lora_and_names_their_bad_fields(api, pinned):
    chat = {"kind": "chat", "system_prompt": "Sort the digits."}
    response = create(api, pinned, prompt_format=chat, lora={"rank": 8})
    assert response.status_code == 201, response.json()
    config = response.json()["config"]
    assert config["prompt_format"] == {**chat, "reasoning_tags": ["<think>", "</think>"]}
    assert config["lora"] == {"rank": 8, "alpha": 16, "dropout": 0.0, "target_modules": None}
    plain = create(api, pinned, prompt_format={"kind": "raw"}, lora={"rank": 0}).json()
    assert "prompt_format" not in plain["config"] and "lora" not in plain["config"]
    bad = create(api, pinned, prompt_format={"kind": "xml"}, lora={"dropout": 1})
    assert bad.status_code == 400
    assert set(fields(bad)) == {"config.prompt_format.kind", "config.lora.dropout"}


def test_it_names_the_hyperparameter_the_engine_refuses(api, pinned):
    response = create(api, pinned, hyperparameters={"learning_rate": -1})
    assert response.status_code == 400
    assert fields(response) == {
        "config.hyperparameters.learning_rate": "must be a number above 0 and at most 1"
    }
    assert not Experiment.objects.exists()


def test_it_refuses_every_out_of_range_hyperparameter_naming_the_field_and_its_limit(api, pinned):
    sizes = {
        "group_size": 10**6,
        "prompts_per_step": 10**6,
        "max_steps": 10**18,
        "learning_rate": 1e308,
        "sampling": {"max_new_tokens": 10**9},
    }
    response = create(api, pinned, hyperparameters=sizes)
    assert response.status_code == 400
    assert fields(response) == {
        "config.hyperparameters.group_size": "must be a whole number from 1 to 1024",
        "config.hyperparameters.prompts_per_step": "must be a whole number from 1 to 16384",
        "config.hyperparameters.max_steps": "must be a whole number from 1 to 1000000",
        "config.hyperparameters.learning_rate": "must be a number above 0 and at most 1",
        "config.hyperparameters.sampling.max_new_tokens": "must be a whole number from 1 to 32768",
    }
    assert not Experiment.objects.exists()


@pytest.mark.parametrize(
    ("hyperparameters", "field", "limit"),
    [
        ({"group_size": 1024, "prompts_per_step": 1024}, "group_size", "at most 65536"),
        ({"group_size": 1024, "prompts_per_step": 1024}, "prompts_per_step", "at most 65536"),
        (
            {"group_size": 64, "prompts_per_step": 1024, "sampling": {"max_new_tokens": 32768}},
            "sampling.max_new_tokens",
            "at most 134217728",
        ),
    ],
)
def test_it_refuses_a_step_whose_size_is_out_of_bounds_though_each_field_is_in_range(
    api, pinned, hyperparameters, field, limit
):
    response = create(api, pinned, hyperparameters=hyperparameters)
    assert response.status_code == 400
    assert limit in fields(response)[f"config.hyperparameters.{field}"]


def test_it_refuses_a_verifier_version_of_another_team(api, pinned, outsider):
    from crucible.accounts.models import Team

    theirs = digit_verifier(outsider, Team.objects.get(slug="elsewhere"), slug="theirs")
    version, _ = pinned
    response = create(api, (version, theirs))
    assert response.status_code == 400
    assert fields(response) == {
        "config.curriculum.families[0].verifier_version": "must be the id of a verifier "
        "version of your team"
    }
    assert not Experiment.objects.exists()


def test_it_refuses_a_pool_version_of_another_team(api, pinned, outsider):
    from crucible.accounts.models import Team

    theirs = digit_version(outsider, Team.objects.get(slug="elsewhere"), slug="theirs")
    response = create(api, (theirs, pinned[1]))
    assert response.status_code == 400
    assert set(fields(response)) == {"config.curriculum.families[0].pool_version"}


def test_it_refuses_levels_the_version_has_no_train_tasks_at(api, pinned):
    version, verifier = pinned
    config = config_for(version, verifier)
    config["curriculum"]["families"][0]["levels"] = [2, 7]
    body = {"team": "reasoning", "name": "Sort", "config": config}
    response = api.post("/api/v1/experiments/", body, format="json")
    assert response.status_code == 400
    assert "[7]" in fields(response)["config.curriculum.families[0].levels"]


def test_it_refuses_a_model_no_running_worker_offers(api, pinned):
    response = create(api, pinned, model="no-such-model")
    assert response.status_code == 400
    message = fields(response)["config.model"]
    assert "'no-such-model'" in message and "tiny-digit-sort" in message


def test_it_copies_a_saved_curriculum_with_a_verifier_per_family(api, owner, team, pinned):
    from tasks_app.services import curricula

    version, verifier = pinned
    saved = curricula.create_curriculum(
        owner,
        team,
        config={"families": [{"version": version.pk, "levels": [2]}], "window": 16},
        name="Ramp",
        slug="ramp",
    )
    config = config_for(version, verifier)
    config["curriculum"] = {"saved": saved.pk, "verifiers": {str(version.pk): verifier.pk}}
    body = {"team": "reasoning", "name": "From saved", "config": config}
    response = api.post("/api/v1/experiments/", body, format="json")
    assert response.status_code == 201, response.json()
    curriculum = response.json()["config"]["curriculum"]
    assert curriculum["origin"] == {"curriculum": saved.pk, "revision": 1}
    assert curriculum["window"] == 16 and curriculum["families"][0]["levels"] == [2]

    config["curriculum"]["verifiers"] = {}
    response = api.post("/api/v1/experiments/", {**body, "config": config}, format="json")
    assert response.status_code == 400
    assert set(fields(response)) == {f"config.curriculum.verifiers.{version.pk}"}


def test_it_lets_members_read_and_only_editors_write(client_for, teammate, outsider, api, pinned):
    experiment_id = create(api, pinned).json()["id"]
    viewer = client_for(teammate)
    assert viewer.get(f"/api/v1/experiments/{experiment_id}/").status_code == 200
    assert [e["id"] for e in viewer.get("/api/v1/experiments/").json()["results"]] == [
        experiment_id
    ]
    assert create(viewer, pinned).status_code == 403
    assert viewer.post(f"/api/v1/experiments/{experiment_id}/clone/", {}).status_code == 403
    stranger = client_for(outsider)
    assert stranger.get(f"/api/v1/experiments/{experiment_id}/").status_code == 404
    assert stranger.get("/api/v1/experiments/").json()["results"] == []
    assert stranger.post(f"/api/v1/experiments/{experiment_id}/launch/").status_code == 404
    assert stranger.post(f"/api/v1/experiments/{experiment_id}/clone/", {}).status_code == 404


def test_it_clones_with_overrides_and_diffs_the_two(api, pinned):
    original = create(api, pinned).json()
    response = api.post(
        f"/api/v1/experiments/{original['id']}/clone/",
        {"name": "Faster", "overrides": {"hyperparameters": {"learning_rate": 1e-3}, "seed": 3}},
        format="json",
    )
    assert response.status_code == 201, response.json()
    clone = response.json()
    assert clone["parent"] == original["id"] and clone["name"] == "Faster"
    assert clone["config"]["hyperparameters"]["max_steps"] == 3  # kept from the original
    diff = api.get(f"/api/v1/experiments/{original['id']}/diff/?other={clone['id']}").json()
    assert diff["changes"] == [
        {"path": "hyperparameters.learning_rate", "old": 5e-4, "new": 1e-3},
        {"path": "seed", "old": 0, "new": 3},
    ]
    assert Experiment.objects.get(pk=original["id"]).config == original["config"]


def test_it_refuses_a_clone_whose_overrides_break_the_configuration(api, pinned):
    original = create(api, pinned).json()
    response = api.post(
        f"/api/v1/experiments/{original['id']}/clone/",
        {"overrides": {"num_processes": 0}},
        format="json",
    )
    assert response.status_code == 400
    assert set(fields(response)) == {"config.num_processes"}
    assert Experiment.objects.count() == 1


def test_it_diffs_only_against_an_experiment_the_caller_can_see(api, pinned, outsider):
    from crucible.accounts.models import Team

    mine = Experiment.objects.get(pk=create(api, pinned).json()["id"])
    theirs = Experiment.objects.create(
        team=Team.objects.get(slug="elsewhere"), name="Theirs", config=mine.config, config_hash="x"
    )
    assert api.get(f"/api/v1/experiments/{mine.pk}/diff/?other=x").status_code == 400
    assert api.get(f"/api/v1/experiments/{mine.pk}/diff/?other={theirs.pk}").status_code == 404


def test_it_launches_numbered_runs_and_queues_them_after_commit(api, pinned, sent):
    experiment_id = create(api, pinned).json()["id"]
    first = api.post(f"/api/v1/experiments/{experiment_id}/launch/")
    second = api.post(f"/api/v1/experiments/{experiment_id}/launch/")
    assert first.status_code == 202, first.json()
    assert (first.json()["number"], second.json()["number"]) == (1, 2)
    assert first.json()["state"] == "queued" and first.json()["max_steps"] == 3
    # The test database wraps each test in a transaction that never commits.
    assert sent.call_count == 0
    assert Run.objects.filter(experiment_id=experiment_id).count() == 2


def test_it_refuses_to_launch_when_no_worker_offers_the_model(api, pinned, sent):
    from experiments.models import Worker

    experiment_id = create(api, pinned).json()["id"]
    Worker.objects.all().delete()
    response = api.post(f"/api/v1/experiments/{experiment_id}/launch/")
    assert response.status_code == 400
    assert "No worker is running" in fields(response)["config.model"]
    assert not Run.objects.exists()

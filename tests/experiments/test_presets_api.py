"""GET /api/v1/algorithms/presets/: named recipes, every value explained; an experiment made
from one is valid, and an invalid change to one is refused with the reason."""

from __future__ import annotations

import pytest

from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version
from training.presets import MIN_PROMPTS_TO_LEARN

pytestmark = pytest.mark.django_db


def presets(api) -> dict[str, dict]:
    response = api.get("/api/v1/algorithms/presets/")
    assert response.status_code == 200
    return {p["name"]: p for p in response.json()}


def test_it_explains_every_value_of_every_preset(api):
    body = presets(api)
    assert set(body) == {"grpo", "dr-grpo", "dapo", "ppo", "rloo", "sft", "rejection-sampling"}
    assert all(v["help"] for p in body.values() for v in p["values"])
    dr = body["dr-grpo"]
    assert (dr["title"], dr["algorithm"]) == ("Dr. GRPO", "grpo") and "2503.20783" in dr["source"]
    scale = next(v for v in dr["values"] if v["path"] == "scale_rewards")
    assert scale["value"] is False
    assert scale["help"].startswith("Divide advantages by the group std")
    assert scale["why"].startswith("Dividing by the std over-weights")


def test_it_says_what_each_presets_run_size_did_and_the_floor_below_which_the_wizard_warns(api):
    body = presets(api)
    for preset in body.values():
        size = {v["path"]: v["value"] for v in preset["values"]}
        assert {"max_steps", "prompts_per_step", "learning_rate"} <= set(size), preset["name"]
        assert "held-out success" in preset["measured"], preset["name"]
        assert f"measure_presets.py --presets {preset['name']}`" in preset["measured"]
    floors = {a["name"]: a["min_prompts"] for a in api.get("/api/v1/algorithms/").json()}
    assert floors["sft"] is None
    assert floors["grpo"] == floors["ppo"] == floors["rloo"] == MIN_PROMPTS_TO_LEARN > 0
    rl = [p for p in body.values() if p["algorithm"] != "sft"]
    for preset in rl:
        size = {v["path"]: v["value"] for v in preset["values"]}
        assert size["max_steps"] * size["prompts_per_step"] >= MIN_PROMPTS_TO_LEARN


def test_it_refuses_anonymous_callers(client_for):
    assert client_for(None).get("/api/v1/algorithms/presets/").status_code in (401, 403)


@pytest.fixture
def pinned(owner, team):
    advertise()
    return digit_version(owner, team), digit_verifier(owner, team)


def experiment_from(api, pinned, preset: dict, **changes) -> object:
    values = {v["path"]: v["value"] for v in preset["values"]}
    config = config_for(*pinned, hyperparameters={**values, **changes})
    config["algorithm"] = preset["algorithm"]
    body = {"team": "reasoning", "name": preset["title"], "config": config}
    return api.post("/api/v1/experiments/", body, format="json")


@pytest.mark.parametrize("name", ["grpo", "dr-grpo", "dapo", "ppo", "rloo", "rejection-sampling"])
def test_it_makes_a_valid_experiment_of_each_rl_preset(api, pinned, name):
    preset = presets(api)[name]
    response = experiment_from(api, pinned, preset)
    assert response.status_code == 201, response.json()
    stored = response.json()["config"]["hyperparameters"]
    assert all(stored[v["path"]] == v["value"] for v in preset["values"])


def test_it_refuses_a_preset_changed_into_an_invalid_combination(api, pinned):
    response = experiment_from(api, pinned, presets(api)["grpo"], group_size=1)
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "field": "config.hyperparameters.group_size",
            "code": "invalid",
            "message": "GRPO needs at least 2 completions per prompt: its advantage compares "
            "each completion with the others of its group",
        }
    ]

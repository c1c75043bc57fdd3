"""GET /api/v1/runs/?filter=...: runs searched by metrics, params, tags and attributes, as
MLflow's search_runs; a bad filter is a 400 naming its token, never a 500."""

from __future__ import annotations

from unittest import mock

import pytest

from experiments.models import Run
from experiments.services import experiments, runs
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def made(api, owner, team):
    def make(name: str, params: dict, tags: dict, summary: dict) -> int:
        body = {"team": "reasoning", "name": name, "params": params, "tags": tags}
        run_id = api.post("/api/v1/runs/", body, format="json").json()["id"]
        Run.objects.filter(pk=run_id).update(summary=summary)
        return run_id

    return {
        "low": make("low", {"lr": 0.001, "optim": {"name": "adamw"}}, {"x": "y"}, {"reward/mean": 0.2}),
        "high": make("high", {"lr": 0.001, "optim": {"name": "sgd"}}, {"x": "y"}, {"reward/mean": 0.8}),
        "text": make("text-lr", {"lr": "auto"}, {"x": "z"}, {"reward/mean": None, "pass@1 (mean)": 1.0}),
    }


def found(api, text: str) -> list[int]:
    response = api.get("/api/v1/runs/", {"filter": text})
    assert response.status_code == 200, response.json()
    return sorted(r["id"] for r in response.json()["results"])


def test_it_searches_by_metrics_params_and_tags(api, made):
    text = "metrics.reward/mean > 0.5 and params.lr = 0.001 and tags.x = y"
    assert found(api, text) == [made["high"]]
    assert found(api, "params.lr > 0.0001") == sorted([made["low"], made["high"]])
    assert found(api, "params.lr = 'auto'") == [made["text"]]
    assert found(api, "params.optim.name like 'ADAM%'") == [made["low"]]
    assert found(api, "tags.x != y") == [made["text"]]
    assert found(api, "metrics.`pass@1 (mean)` >= 1") == [made["text"]]
    assert found(api, "metrics.reward/mean <= 0.2") == [made["low"]]  # a null never matches
    assert found(api, "name like 'text%' and state = running and source = external") == [
        made["text"]
    ]


def test_platform_runs_are_searched_by_their_experiment_configuration(api, owner, team, made):
    advertise()
    config = config_for(digit_version(owner, team), digit_verifier(owner, team))
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    with mock.patch("crucible.jobs.send"):
        run = runs.launch(owner, experiment)
    assert found(api, "params.hyperparameters.max_steps = 3") == [run.pk]
    assert found(api, f"experiment = {experiment.pk} and name = Sort") == [run.pk]


def test_it_answers_400_naming_the_bad_token(api, made):
    cases = {
        "metrics.x >": "incomplete",
        "bogus = 1": "'bogus'",
        "metrics.x = abc": "'abc'",
        "state = running or step > 1": "'or'",
        "tags.x > 1": "'>'",
        "metrics.x = 1; drop table runs": "'; drop table",
        "params.a = 1" + " and params.a = 1" * 20: "at most 20",
        "x" * 2001: "at most 2000",
        "metrics.x = nan": "finite",
    }
    for text, named in cases.items():
        response = api.get("/api/v1/runs/", {"filter": text})
        assert response.status_code == 400, text
        (error,) = response.json()["errors"]
        assert error["field"] == "filter" and named in error["message"], (text, error)


def test_keys_and_values_are_data_not_sql(api, made):
    for text in (
        "tags.`x' OR '1'='1` = y",
        "params.`lr\") OR 1=1 --` = 1",
        "metrics.`reward/mean' OR 1=1 --` > 0",
        "tags.x = 'y'' OR ''1''=''1'",
    ):
        response = api.get("/api/v1/runs/", {"filter": text})
        assert response.status_code in (200, 400), text
        if response.status_code == 200:
            assert response.json()["results"] == []


def test_outsiders_find_nothing(client_for, outsider, made):
    response = client_for(outsider).get("/api/v1/runs/", {"filter": "tags.x = y"})
    assert response.status_code == 200 and response.json()["results"] == []

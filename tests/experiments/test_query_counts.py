"""Every list and detail endpoint issues the same number of queries whatever the number of
rows it shows: a page of 3 objects and a page of 9 cost the same, so no serializer field
fetches per row (N+1). Each object carries what its serializer reads (a run its metrics and
checkpoints, a model its versions and aliases, a deployment its replicas and canary)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from experiments.catalogue import TINY_MODEL
from experiments.models import (
    Checkpoint,
    EvaluationReport,
    Experiment,
    MetricPoint,
    ModelAlias,
    ModelVersion,
    RegisteredModel,
    Run,
    RunState,
)
from experiments.services import experiments
from serving.models import Canary, Deployment, Replica
from tests.experiments.reports_setup import finished_job
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version

pytestmark = pytest.mark.django_db

N = 3
serial = count(1)


def add_runs(owner, team, n: int) -> list[str]:
    experiment = Experiment.objects.create(
        team=team, name=f"exp-{next(serial)}", config={}, config_hash="0" * 64, created_by=owner
    )
    urls = []
    for number in range(1, n + 1):
        run = Run.objects.create(
            experiment=experiment, team=team, number=number, state=RunState.RUNNING,
            created_by=owner, summary={"reward/mean": 0.5}, step=4, max_steps=10,
        )  # fmt: skip
        MetricPoint.objects.bulk_create(
            MetricPoint(run=run, key=key, step=step, value=step / 10, wall_time=1.0 + step)
            for key in ("reward/mean", "loss")
            for step in range(5)
        )
        Checkpoint.objects.create(run=run, step=4, path=f"/ckpt/{run.pk}/step-000004")
        urls.append(f"/api/v1/runs/{run.pk}/")
    return urls


def add_experiments(owner, team, n: int) -> list[str]:
    first = Experiment.objects.filter(team=team).exclude(config={}).first()
    if first is None:
        advertise()
        config = config_for(digit_version(owner, team), digit_verifier(owner, team))
        first = experiments.create_experiment(owner, team, name="first", config=config)
    urls = []
    for _ in range(n):
        experiment = Experiment.objects.create(
            team=team, name=f"exp-{next(serial)}", config=first.config,
            config_hash=first.config_hash, created_by=owner, parent=first,
        )  # fmt: skip
        Run.objects.create(experiment=experiment, team=team, number=1, created_by=owner)
        urls.append(f"/api/v1/experiments/{experiment.pk}/")
    return urls


def add_evaluations(owner, team, n: int) -> list[str]:
    return [
        f"/api/v1/evaluations/{finished_job(owner, team, [4, 2, 0], subject=f's{next(serial)}').pk}/"
        for _ in range(n)
    ]


def add_reports(owner, team, n: int) -> list[str]:
    urls = []
    for _ in range(n):
        k = next(serial)
        candidate = finished_job(owner, team, [4, 3, 1], subject=f"candidate-{k}")
        baseline = finished_job(owner, team, [4, 2, 0], subject=f"baseline-{k}")
        report = EvaluationReport.objects.create(
            team=team, candidate=candidate, baseline=baseline, lineage=f"lineage-{k}",
            version=1, headline="better", figures={}, created_by=owner,
        )  # fmt: skip
        urls.append(f"/api/v1/reports/{report.pk}/")
    return urls


def registered(owner, team) -> tuple[RegisteredModel, ModelVersion]:
    model = RegisteredModel.objects.create(team=team, name=f"model-{next(serial)}", created_by=owner)
    version = ModelVersion.objects.create(
        model=model, number=1, base_model=TINY_MODEL, created_by=owner
    )
    ModelVersion.objects.create(model=model, number=2, base_model=TINY_MODEL, created_by=owner)
    ModelAlias.objects.create(model=model, alias="production", version=version, updated_by=owner)
    return model, version


def add_models(owner, team, n: int) -> list[str]:
    return [f"/api/v1/registered-models/{registered(owner, team)[0].pk}/" for _ in range(n)]


def add_versions(owner, team, n: int) -> list[str]:
    return [f"/api/v1/model-versions/{registered(owner, team)[1].pk}/" for _ in range(n)]


def add_deployments(owner, team, n: int) -> list[str]:
    urls = []
    for _ in range(n):
        model, version = registered(owner, team)
        candidate = model.versions.get(number=2)
        slug = f"deploy-{next(serial)}"
        deployment = Deployment.objects.create(
            team=team, name=slug, slug=slug, registered_model=model, version=version,
            created_by=owner,
        )  # fmt: skip
        Replica.objects.create(deployment=deployment, version=version)
        replica = Replica.objects.create(deployment=deployment, version=candidate)
        Canary.objects.create(
            deployment=deployment, production=version, candidate=candidate, replica=replica,
            created_by=owner,
        )  # fmt: skip
        urls.append(f"/api/v1/deployments/{slug}/")
    return urls


ENDPOINTS: dict[str, tuple[str, Callable[..., list[str]]]] = {
    "runs": ("/api/v1/runs/", add_runs),
    "experiments": ("/api/v1/experiments/", add_experiments),
    "evaluations": ("/api/v1/evaluations/", add_evaluations),
    "reports": ("/api/v1/reports/", add_reports),
    "registered-models": ("/api/v1/registered-models/", add_models),
    "model-versions": ("/api/v1/model-versions/", add_versions),
    "deployments": ("/api/v1/deployments/", add_deployments),
}


def queries(api, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = api.get(url)
    assert response.status_code == 200, (url, response.content[:500])
    return len(captured.captured_queries)


@pytest.mark.parametrize("name", ENDPOINTS)
def test_it_lists_any_number_of_rows_in_the_same_number_of_queries(api, owner, team, name):
    url, add = ENDPOINTS[name]
    add(owner, team, N)
    few = queries(api, url)
    shown = len(api.get(url).json()["results"])
    add(owner, team, 2 * N)
    assert len(api.get(url).json()["results"]) >= shown + 2 * N
    assert queries(api, url) == few, f"{url}: {few} queries for {N} rows, more for {3 * N}"


@pytest.mark.parametrize("name", ENDPOINTS)
def test_it_shows_one_object_in_the_same_number_of_queries_whatever_else_exists(
    api, owner, team, name
):
    _, add = ENDPOINTS[name]
    first = add(owner, team, N)[0]
    few = queries(api, first)
    add(owner, team, 2 * N)
    assert queries(api, first) == few


def test_it_reads_a_runs_metrics_in_the_same_number_of_queries_whatever_their_count(
    api, owner, team
):
    run_url = add_runs(owner, team, 1)[0]
    run = Run.objects.get(pk=run_url.rstrip("/").rsplit("/", 1)[1])
    urls = [f"{run_url}metrics/", f"{run_url}metrics/raw/?key=reward/mean"]
    few = [queries(api, url) for url in urls]
    MetricPoint.objects.bulk_create(
        MetricPoint(run=run, key=f"extra/{k}", step=step, value=0.1, wall_time=2.0)
        for k in range(3)
        for step in range(50)
    )
    assert [queries(api, url) for url in urls] == few

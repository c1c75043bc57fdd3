"""Launching a run sized against what the running workers advertise: processes, strategy,
memory and time, each refusal a 400 naming the field and the limit."""

from __future__ import annotations

import re
from unittest import mock

import pytest

from experiments.catalogue import TINY_MODEL
from experiments.models import Run, Worker
from tests.experiments.runs_setup import config_for, digit_verifier, digit_version

pytestmark = pytest.mark.django_db
TINY = {"parameters": 420_000, "shape": {"hidden": 128, "layers": 2, "vocab": 300, "kv_dim": 128}}
SEVEN_B = {"parameters": 7_000_000_000, "shape": None}
GB = 10**9


def offering(name: str, *, model: str = TINY_MODEL, size=TINY, memory=None, gpus=(), cpu=16):
    """A running worker on the gpu queue that offers ``model`` and reports its devices."""
    entry = {"name": model, "path": model, "builtin": model == TINY_MODEL, "ready": True, **size}
    devices = {"cuda": len(gpus), "names": ["GPU"] * len(gpus), "gpu_memory": list(gpus)}
    devices |= {"cpu": cpu, "memory": memory}
    Worker.objects.update_or_create(
        name=name, defaults={"queues": ["gpu"], "loadable": [entry], "devices": devices}
    )


@pytest.fixture
def sent():
    with mock.patch("crucible.jobs.send") as send:
        yield send


@pytest.fixture
def launch(api, owner, team, sent):
    pinned = digit_version(owner, team), digit_verifier(owner, team)

    def launch(model: str = TINY_MODEL, **extra):
        body = {"team": "reasoning", "name": "Big", "config": config_for(*pinned, model, **extra)}
        created = api.post("/api/v1/experiments/", body, format="json")
        assert created.status_code == 201, created.json()
        return api.post(f"/api/v1/experiments/{created.json()['id']}/launch/")

    return launch


def errors(response) -> dict[str, str]:
    body = response.json()
    assert response.status_code == 400, body
    return {e["field"]: e["message"] for e in body["errors"]}


LARGEST_STEP = {"prompts_per_step": 256, "group_size": 64, "sampling": {"max_new_tokens": 512}}
"""In range field by field, and 16,384 completions of 512 tokens in one step."""


def test_it_refuses_a_step_larger_than_any_workers_memory_naming_the_field_and_limit(launch):
    offering("celery@cpu", memory=2 * GB)
    response = launch(hyperparameters=LARGEST_STEP)
    found = errors(response)
    assert list(found) == ["config.hyperparameters.sampling.max_new_tokens"]
    message = found["config.hyperparameters.sampling.max_new_tokens"]
    assert re.fullmatch(
        r"a step needs about \d+ GB, mostly [a-z ]+ \(\d+ GB\); the largest worker offers "
        r"2\.0 GB of memory",
        message,
    ), message
    assert not Run.objects.exists()


def test_it_names_the_model_when_its_weights_and_optimizer_outgrow_every_gpu(launch):
    offering("celery@gpu", model="org/seven-b", size=SEVEN_B, gpus=[24 * GB], memory=64 * GB)
    found = errors(launch("org/seven-b"))
    assert found["config.model"].endswith("the largest worker offers 24 GB of GPU memory per process")
    assert "mostly model states (112 GB)" in found["config.model"]


def test_it_refuses_deepspeed_on_a_worker_without_gpus(launch):
    offering("celery@cpu", memory=64 * GB)
    found = errors(launch(num_processes=2, strategy="deepspeed"))
    assert found == {
        "config.strategy": "deepspeed shards the model over GPUs and the worker has none; on "
        "CPUs use ddp"
    }


def test_it_refuses_more_processes_than_the_worker_has_gpus(launch):
    offering("celery@gpu", gpus=[80 * GB, 80 * GB], memory=64 * GB)
    found = errors(launch(num_processes=4, hyperparameters={"prompts_per_step": 4}))
    assert found == {"config.num_processes": "4 processes need 4 GPUs; at most 2"}


def test_it_refuses_more_steps_than_a_run_may_last_on_the_fastest_hardware(launch, settings):
    offering("celery@gpu", model="org/seven-b", size=SEVEN_B, gpus=[10**6 * GB], memory=64 * GB)
    response = launch("org/seven-b", hyperparameters={"max_steps": 1_000_000, **LARGEST_STEP})
    found = errors(response)
    limit_h = settings.RUN_TIME_LIMIT_SECONDS // 3600
    assert found["config.hyperparameters.max_steps"].startswith("1000000 steps take at least")
    assert found["config.hyperparameters.max_steps"].endswith(f"a run may last at most {limit_h} h")


def test_it_launches_when_one_worker_fits_though_another_does_not(launch):
    offering("celery@small", memory=1 * GB)
    offering("celery@large", gpus=[80 * GB], memory=64 * GB)
    sizes = {"prompts_per_step": 64, "group_size": 16, "sampling": {"max_new_tokens": 512}}
    response = launch(hyperparameters={**sizes, "micro_batch_size": 64})
    assert response.status_code == 202, response.json()


def test_it_launches_an_ordinary_run_on_a_cpu_worker(launch):
    offering("celery@cpu", memory=2 * GB, cpu=2)
    response = launch(num_processes=2, hyperparameters={"max_steps": 100})
    assert response.status_code == 202, response.json()


def test_it_leaves_sizing_to_the_worker_when_none_reports_its_memory(launch):
    offering("celery@older", size={"parameters": None}, memory=None)
    assert launch(hyperparameters=LARGEST_STEP).status_code == 202

"""What experiment and run tests set up: a digit-sort pool version, its verifier, a worker
that advertises a model, and a configuration over them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from experiments.catalogue import TINY_MODEL
from experiments.models import Worker
from tasks_app.models import PoolVersion, VerifierVersion
from tasks_app.services import families, pools, verifiers


def digit_version(user, team, slug: str = "digits", counts=None) -> PoolVersion:
    family = families.create_family(user, team, name=slug.title(), slug=slug, kind="digit-sort")
    tasks = pools.generated_tasks(family, counts or {2: 40, 3: 40}, seed=0)
    return pools.version_from_tasks(
        user, family, tasks, source="generator", detail={}, near=False
    )[0]


def digit_verifier(user, team, slug: str = "exact-sort") -> VerifierVersion:
    verifier = verifiers.create_verifier(
        user, team, name=slug.title(), slug=slug, family_kind="digit-sort"
    )
    version = verifier.latest_version()
    assert version is not None
    return version


def advertise(*models: str, name: str = "celery@test", queues=("gpu", "cpu", "default")) -> Worker:
    """A running worker (fresh heartbeat) that offers ``models`` (default: the tiny model)."""
    loadable = [
        {"name": m, "path": m, "builtin": m == TINY_MODEL, "parameters": None, "ready": True}
        for m in models or (TINY_MODEL,)
    ]
    worker, _ = Worker.objects.update_or_create(
        name=name, defaults={"queues": list(queues), "loadable": loadable, "stopped_at": None}
    )
    return worker


def config_for(
    version: PoolVersion, verifier: VerifierVersion, model: str = TINY_MODEL, **extra: Any
) -> dict[str, Any]:
    hyper = {
        "max_steps": 3,
        "prompts_per_step": 4,
        "group_size": 4,
        "cpu_threads": 1,
        "sampling": {"max_new_tokens": 8},
        **extra.pop("hyperparameters", {}),
    }
    return {
        "curriculum": {
            "families": [{"pool_version": version.pk, "verifier_version": verifier.pk}],
            "window": 8,
        },
        "model": model,
        "algorithm": "grpo",
        "hyperparameters": hyper,
        **extra,
    }


WARM_START_STEPS = 60
"""SFT steps of the test copy of the tiny model: enough for mixed rewards, ~10 s on a CPU."""


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory) -> Path:
    """A models folder whose built-in tiny model is a short warm start (the catalogue would
    otherwise build the full one on first use)."""
    import torch

    from training.demo import cached_base

    folder = tmp_path_factory.mktemp("models")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        cached_base(folder / TINY_MODEL, WARM_START_STEPS)
    finally:
        torch.set_num_threads(threads)
    return folder

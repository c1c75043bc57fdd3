"""The engine trains on the platform's pieces: curriculum sampler, verifier reward, store."""

import json

import pytest

from experiments.adapters import verifier_reward_fn
from experiments.services.sampling import curriculum_sampler
from tasks_app.families import string_ops
from tasks_app.services import curricula, pools
from training.config import GRPOConfig, ModelConfig, SamplingConfig
from training.engine import train
from training.interfaces import DirectoryStore, MemorySink

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def curriculum(owner, team):
    family = pools.create_family(owner, team, name="Sorting", slug="sorting", kind="string-ops")
    tasks = pools.generated_tasks(family, {1: 30, 2: 30}, seed=0)
    version = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]
    config = {"families": [{"version": version.id}], "window": 4}
    return curricula.create_curriculum(owner, team, config=config, name="Ramp", slug="ramp")


def test_it_runs_grpo_on_curriculum_tasks_judged_by_the_verifier(curriculum, tmp_path):
    sampler = curriculum_sampler(curriculum, seed=0)
    reward_fn = verifier_reward_fn(string_ops.default_verifier())
    corpus = [item.prompt for item in sampler.sample(64)]
    config = GRPOConfig(
        max_steps=2,
        prompts_per_step=4,
        group_size=2,
        checkpoint_every=2,
        cpu_threads=1,
        sampling=SamplingConfig(max_new_tokens=6),
        model=ModelConfig(tiny_layers=1, tiny_width=32),
    )
    sink = MemorySink()
    store = DirectoryStore(tmp_path / "checkpoints")
    result = train(
        config, sampler=sampler, reward_fn=reward_fn, sink=sink, store=store, corpus=corpus
    )
    assert [step for step, _ in sink.rows] == [1, 2]
    assert "reward/mean" in sink.rows[-1][1] and "success/sorting" in json.dumps(sink.rows[-1][1])
    checkpoint = store.latest()
    assert checkpoint is not None and result.model is not None
    assert sampler.curriculum.state_dict()["distributions"]["sorting"]

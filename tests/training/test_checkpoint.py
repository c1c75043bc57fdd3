import json

import pytest

from training import digits
from training.config import GRPOConfig, ModelConfig, SamplingConfig
from training.engine import train
from training.interfaces import DirectoryStore, MemorySink
from training.models import load_model

VOLATILE = ("time/", "perf/")


def config() -> GRPOConfig:
    # Several epochs and a KL term, so old log-probs, the reference model and the
    # optimizer's moments all have to survive the restart.
    return GRPOConfig(
        max_steps=4,
        prompts_per_step=4,
        group_size=4,
        num_epochs=2,
        kl_estimator="k3",
        kl_coef=0.05,
        lr_schedule="linear",
        learning_rate=1e-3,
        checkpoint_every=2,
        sampling=SamplingConfig(max_new_tokens=12),
        seed=7,
    )


def run(base_dir, store, sink):
    model, tokenizer = load_model(ModelConfig(path=str(base_dir)))
    sampler = digits.DigitSortSampler(3, 6, seed=11)
    return train(
        config(),
        sampler=sampler,
        reward_fn=digits.reward_fn,
        sink=sink,
        store=store,
        model=model,
        tokenizer=tokenizer,
    )


def stable(rows):
    return [(step, {k: v for k, v in m.items() if not k.startswith(VOLATILE)}) for step, m in rows]


@pytest.mark.slow
def test_it_resumes_from_last_checkpoint_with_identical_metrics(base_dir, tmp_path):
    straight = MemorySink()
    run(base_dir, DirectoryStore(tmp_path / "a"), straight)

    interrupted = MemorySink(stop_after=2)
    first = run(base_dir, DirectoryStore(tmp_path / "b"), interrupted)
    assert first.stopped and first.steps == 2
    resumed = MemorySink()
    second = run(base_dir, DirectoryStore(tmp_path / "b"), resumed)

    assert second.steps == 4
    assert [step for step, _ in resumed.rows] == [3, 4]
    assert stable(resumed.rows) == stable(straight.rows[2:])


def test_it_writes_a_complete_checkpoint(base_dir, tmp_path):
    store = DirectoryStore(tmp_path)
    model, tokenizer = load_model(ModelConfig(path=str(base_dir)))
    cfg = GRPOConfig(
        max_steps=1, prompts_per_step=2, group_size=2, sampling=SamplingConfig(max_new_tokens=12)
    )
    train(
        cfg,
        sampler=digits.DigitSortSampler(seed=1),
        reward_fn=digits.reward_fn,
        store=store,
        model=model,
        tokenizer=tokenizer,
    )
    path = store.latest()
    names = {p.name for p in path.iterdir()}
    assert {"model", "scheduler.pt", "optimizer-rank0.pt", "rng-rank0.pt", "state.json"} <= names
    state = json.loads((path / "state.json").read_text())
    assert state["step"] == 1 and state["config"]["algorithm"] == "grpo"
    reloaded, _ = load_model(ModelConfig(path=str(path / "model")))
    assert reloaded.config.hidden_size == 128

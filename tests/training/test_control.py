"""Steering a run between steps: changes handed to the sampler, and a stop that keeps its state."""

from typing import Any

import pytest

from training import digits
from training.config import GRPOConfig, ModelConfig, SamplingConfig
from training.engine import train
from training.interfaces import DirectoryStore, Item, MemorySink
from training.models import load_model


class LengthSampler(digits.DigitSortSampler):
    """Digit lists whose length range a change can move; the range is part of its state."""

    def apply(self, change: dict[str, Any]) -> None:
        if not 1 <= change["min_len"] <= change["max_len"]:
            raise ValueError("min_len: must be from 1 to max_len")
        self.min_len, self.max_len = change["min_len"], change["max_len"]

    def sample(self, n: int) -> list[Item]:
        items = super().sample(n)
        self.drawn.append(sorted({len(it.payload["digits"]) for it in items}))
        return items

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "lengths": [self.min_len, self.max_len]}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.min_len, self.max_len = state["lengths"]

    drawn: list[list[int]]


def length_sampler() -> LengthSampler:
    sampler = LengthSampler(2, 3, seed=3)
    sampler.drawn = []
    return sampler


def config(**extra: Any) -> GRPOConfig:
    fields: dict[str, Any] = {
        "max_steps": 3,
        "prompts_per_step": 4,
        "group_size": 2,
        "sampling": SamplingConfig(max_new_tokens=8),
        "cpu_threads": 1,
    }
    return GRPOConfig(**{**fields, **extra})


def train_with(base_dir, sampler, sink, store=None, **extra: Any):
    model, tokenizer = load_model(ModelConfig(path=str(base_dir)))
    return train(
        config(**extra),
        sampler=sampler,
        reward_fn=digits.reward_fn,
        sink=sink,
        store=store,
        model=model,
        tokenizer=tokenizer,
    )


def test_it_applies_a_change_at_the_next_step_boundary(base_dir):
    sampler = length_sampler()
    sink = MemorySink(changes={1: [{"min_len": 6, "max_len": 6}]})
    train_with(base_dir, sampler, sink)
    assert sampler.drawn[0] != [6]
    assert sampler.drawn[1:] == [[6], [6]]  # steps 2 and 3 drew under the change


def test_it_keeps_an_applied_change_in_the_state_a_resume_loads(base_dir, tmp_path):
    store = DirectoryStore(tmp_path / "checkpoints")
    paused = MemorySink(stop_after=2, save_on_stop=True, changes={1: [{"min_len": 5, "max_len": 5}]})
    result = train_with(base_dir, length_sampler(), paused, store)
    assert result.stopped and store.latest() is not None and store.latest().name == "step-000002"

    resumed = length_sampler()  # built from the experiment's config again: lengths 2-3
    train_with(base_dir, resumed, MemorySink(), store)
    assert resumed.drawn == [[5]]


def test_it_saves_no_checkpoint_when_a_stop_does_not_ask_for_one(base_dir, tmp_path):
    store = DirectoryStore(tmp_path / "checkpoints")
    result = train_with(base_dir, length_sampler(), MemorySink(stop_after=1), store)
    assert result.stopped and result.steps == 1 and store.latest() is None


def test_it_refuses_a_change_for_a_sampler_that_cannot_take_one(base_dir):
    sink = MemorySink(changes={1: [{"min_len": 4, "max_len": 4}]})
    with pytest.raises(ValueError, match="DigitSortSampler cannot change while it trains"):
        train_with(base_dir, digits.DigitSortSampler(2, 3, seed=3), sink)


def test_it_fails_the_run_on_a_change_the_sampler_refuses(base_dir):
    sink = MemorySink(changes={0: [{"min_len": 4, "max_len": 2}]})
    with pytest.raises(ValueError, match="min_len"):
        train_with(base_dir, length_sampler(), sink)

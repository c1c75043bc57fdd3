"""An evaluation job's episodes: k judged episodes per held-out task, batch by batch, each kept
with its turns, tokens and errors beside the task's turn budget and the agreement of its
repeated episodes."""

from __future__ import annotations

import pytest
import torch

from training import guessing
from training.config import SamplingConfig
from training.episodes import EpisodeRecord, TurnLimits
from training.evaluation import (
    EpisodeBatch,
    agreement,
    episode_summary,
    judged_episode_batches,
    turn_budget,
)
from training.generation import HFGenerator
from training.interfaces import Item, RewardResult
from training.models import build_tiny_model, train_tokenizer


@pytest.fixture(scope="module")
def tiny():
    tokenizer = train_tokenizer(guessing.corpus(300))
    return build_tiny_model(tokenizer, layers=1, width=32, seed=0).eval(), tokenizer


def batches(tiny, items, k, seed=3):
    model, tokenizer = tiny
    return list(
        judged_episode_batches(
            HFGenerator(model, tokenizer), tokenizer, items, guessing.environment(),
            SamplingConfig(max_new_tokens=3, temperature=1.0), k,
            prompts_per_batch=4, seed_of=lambda start: seed + start, device=torch.device("cpu"),
        )
    )  # fmt: skip


def test_it_plays_k_judged_episodes_per_task_batch_by_batch(tiny) -> None:
    items = guessing.held_out(6, seed=4)
    found = batches(tiny, items, k=3)
    assert [len(b.items) for b in found] == [4, 2]
    assert [len(b.records) for b in found] == [12, 6]
    spec = guessing.environment()
    for batch in found:
        for i, item in enumerate(batch.items):
            stored = batch.task_episodes(i, spec.limits)
            assert stored["turn_budget"] == min(spec.limits.max_turns, item.payload["max_turns"])
            assert len(stored["episodes"]) == 3
            for e in stored["episodes"]:
                assert 1 <= e["turns"] <= stored["turn_budget"]
                assert e["tokens"] >= e["assistant_tokens"] > 0
                assert 0 <= e["tool_errors"] <= e["turn_errors"] <= e["turns"]
                assert e["ended_by"] in ("environment", "max_turns", "max_total_tokens")
            passes = sum(e["passed"] for e in stored["episodes"])
            assert stored["agreement"] == agreement(passes, 3)
    # A batch plays the same whatever ran before it.
    again = batches(tiny, items[4:], k=3, seed=7)
    assert [r.turns for r in again[0].records] == [r.turns for r in found[1].records]


def test_agreement_is_the_share_of_pairs_with_the_same_outcome() -> None:
    assert agreement(4, 4) == agreement(0, 4) == 1.0
    assert agreement(2, 4) == pytest.approx(2 / 6)
    assert agreement(3, 4) == pytest.approx(3 / 6)
    assert agreement(1, 1) is None


def test_a_task_may_carry_a_smaller_turn_budget_than_the_limits() -> None:
    limits = TurnLimits(max_turns=6)
    assert turn_budget(Item("p", {"max_turns": 4}), limits) == 4
    assert turn_budget(Item("p", {"max_turns": 9}), limits) == 6
    assert turn_budget(Item("p", {"max_turns": True}), limits) == 6
    assert turn_budget(Item("p", {"answer": 3}), limits) == 6


def test_an_episode_counts_its_turn_and_tool_call_errors() -> None:
    record = EpisodeRecord(
        messages=[], tools=[], turns=4, errors=[None, "tool_call_parse", "tool_error", "invalid_move"],
        final_state={}, ended_by="max_turns", tokens=40, assistant_tokens=12,
    )  # fmt: skip
    summary = episode_summary(record, RewardResult(0.0, False))
    assert summary == {
        "passed": False, "turns": 4, "tokens": 40, "assistant_tokens": 12, "turn_errors": 3,
        "tool_errors": 2, "ended_by": "max_turns",
    }  # fmt: skip
    batch = EpisodeBatch([Item("p", {})], [RewardResult(1.0, True)], [record], k=1)
    assert batch.task_episodes(0, TurnLimits(max_turns=5))["agreement"] is None

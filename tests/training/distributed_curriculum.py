"""Run by test_distributed.py under `accelerate launch` (2 CPU processes on gloo): GRPO on a
tiny model with a sampler whose state moves with what it observes, like the platform's
curriculum. Each rank writes its sampler's final state to <out>/rank<r>.json."""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accelerate import PartialState

from tests.training.test_dynamic_sampling import flat_or_mixed
from training import digits
from training.config import GRPOConfig, SamplingConfig
from training.engine import train
from training.interfaces import DirectoryStore, Item, MemorySink, RewardResult
from training.models import build_tiny_model, train_tokenizer

STEPS, PROMPTS, GROUP = 3, 4, 4
"""Steps trained (the sink asks to stop after them, of one more configured), prompts per step
and completions per prompt."""


class AdaptiveSampler:
    """Draws digit lists at a level that rises or falls with the rolling mean reward; its state
    also hashes every (prompt, reward) it observed, so two ranks agree only if each saw all."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.level, self.window, self.observed = 2, [], 0
        self.digest = hashlib.sha256()

    def sample(self, n: int) -> list[Item]:
        levels = [self.level, min(self.level + 1, 8)]
        lengths = [self.rng.choice(levels) for _ in range(n)]
        return [
            digits.make_item("".join(self.rng.choice("0123456789") for _ in range(length)))
            for length in lengths
        ]

    def observe(self, items: Sequence[Item], results: Sequence[RewardResult]) -> None:
        for item, result in zip(items, results, strict=True):
            self.digest.update(f"{item.prompt}:{result.reward:.6f}".encode())
            self.window = [*self.window, float(result.reward or 0.0)][-64:]
            self.observed += 1
        mean = sum(self.window) / len(self.window)
        self.level = min(self.level + 1, 8) if mean > 0.2 else max(self.level - 1, 2)

    def state_dict(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {
            "level": self.level,
            "window": self.window,
            "observed": self.observed,
            "digest": self.digest.hexdigest(),
            "rng": [version, list(internal), gauss],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        raise NotImplementedError


def main(out: Path, dynamic: bool = False) -> None:
    """`dynamic`: DAPO dynamic sampling, on a reward that leaves some groups flat, so ranks
    refill (each its own share of flat groups) and must still agree on every round."""
    tokenizer = train_tokenizer(digits.corpus(300))
    model = build_tiny_model(tokenizer, layers=1, width=32, seed=0)
    sampler = AdaptiveSampler(seed=1)
    config = GRPOConfig(
        max_steps=STEPS + 1,
        prompts_per_step=PROMPTS,
        group_size=GROUP,
        learning_rate=1e-2,
        sampling=SamplingConfig(max_new_tokens=6),
        checkpoint_every=2,
        cpu_threads=1,
        dynamic_sampling=dynamic,
        max_refill_rounds=4,
    )
    sink = MemorySink(stop_after=STEPS)
    # Only the main process logs, so only its sink knows when to stop: every rank must follow it.
    result = train(
        config,
        sampler=sampler,
        reward_fn=flat_or_mixed if dynamic else digits.reward_fn,
        sink=sink,
        store=DirectoryStore(out / "checkpoints"),
        model=model,
        tokenizer=tokenizer,
    )
    state = PartialState()
    report = {
        "rank": state.process_index,
        "world": state.num_processes,
        "backend": state.backend,
        "steps": result.steps,
    }
    (out / f"rank{state.process_index}.json").write_text(
        json.dumps({**report, "sampler": sampler.state_dict(), "metrics": sink.rows})
    )
    # As the platform's ranks do (experiments/launch.py): end the group before exiting.
    state.wait_for_everyone()
    state.destroy_process_group()


if __name__ == "__main__":
    main(Path(sys.argv[1]), dynamic=sys.argv[2:] == ["dynamic"])

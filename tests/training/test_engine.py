"""The driver's hooks for the platform: completions per step, and tokens seen across resumes."""

from collections.abc import Sequence

from training import digits
from training.config import GRPOConfig, ModelConfig, PPOConfig, SamplingConfig
from training.engine import train
from training.interfaces import Completion, DirectoryStore, MemorySink, RewardResult
from training.models import load_model


class Recorder(MemorySink):
    """A sink that also takes each step's completions."""

    def __init__(self, stop_after: int | None = None) -> None:
        super().__init__(stop_after)
        self.steps: list[tuple[int, list[Completion]]] = []

    def rollouts(self, step: int, completions: Sequence[Completion]) -> None:
        self.steps.append((step, list(completions)))


def detailed_reward(items, completions) -> list[RewardResult]:
    results = digits.reward_fn(items, completions)
    for result in results:
        result.details = {"layers": [{"name": "exact", "passed": result.passed}]}
    return results


def run(base_dir, config, sink, store=None):
    model, tokenizer = load_model(ModelConfig(path=str(base_dir)))
    return train(
        config,
        sampler=digits.DigitSortSampler(2, 5, seed=3),
        reward_fn=detailed_reward,
        sink=sink,
        store=store,
        model=model,
        tokenizer=tokenizer,
    )


def small(cls=GRPOConfig, **extra):
    fields = {
        "max_steps": 2,
        "prompts_per_step": 3,
        "group_size": 4,
        "sampling": SamplingConfig(max_new_tokens=8),
        "cpu_threads": 1,
    }
    return cls(**{**fields, **extra})


def test_it_hands_every_completion_with_its_group_and_advantage_to_the_rollout_sink(base_dir):
    sink = Recorder()
    run(base_dir, small(), sink)
    assert [step for step, _ in sink.steps] == [1, 2]
    completions = sink.steps[0][1]
    assert [(c.group, c.sample) for c in completions] == [(g, s) for g in range(3) for s in range(4)]
    for group in range(3):
        rows = [c for c in completions if c.group == group]
        assert len({c.item.prompt for c in rows}) == 1
        rewards = [c.result.reward for c in rows]
        mean = sum(rewards) / len(rewards)
        # GRPO: advantage has the sign of (reward - group mean); zero when all are equal.
        for c in rows:
            assert c.advantage is not None
            assert (c.advantage > 0) == (c.result.reward > mean + 1e-9)
    assert completions[0].result.details == {
        "layers": [{"name": "exact", "passed": completions[0].result.passed}]
    }


def test_it_gives_ppo_completions_their_mean_token_advantage(base_dir):
    sink = Recorder()
    run(base_dir, small(PPOConfig), sink)
    advantages = [c.advantage for c in sink.steps[-1][1]]
    assert all(a is not None for a in advantages) and len(set(advantages)) > 1


def test_it_counts_tokens_seen_cumulatively_across_a_resume(base_dir, tmp_path):
    straight = MemorySink()
    run(base_dir, small(max_steps=4, checkpoint_every=2), straight)
    seen = [m["perf/tokens_seen"] for _, m in straight.rows]
    assert seen == sorted(seen) and seen[0] > 0 and len(set(seen)) == 4

    store = DirectoryStore(tmp_path / "checkpoints")
    run(base_dir, small(max_steps=4, checkpoint_every=2), MemorySink(stop_after=2), store)
    resumed = MemorySink()
    run(base_dir, small(max_steps=4, checkpoint_every=2), resumed, store)
    assert [step for step, _ in resumed.rows] == [3, 4]
    assert [m["perf/tokens_seen"] for _, m in resumed.rows] == seen[2:]

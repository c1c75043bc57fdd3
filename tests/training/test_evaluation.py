"""The evaluation job's loop: batches judged on threads while the next batch generates."""

import threading

import torch

from training import digits
from training.config import SamplingConfig
from training.decode import DecodeGenerator
from training.evaluation import judged_batches
from training.generation import HFGenerator
from training.interfaces import RewardResult

ITEMS = digits.held_out(40, 2, 8, seed=7)


def serial(generator, sampling, k, batch, seed_of):
    """The loop the job ran before: seed, generate, then judge, one batch after another."""
    out = []
    for start in range(0, len(ITEMS), batch):
        chunk = ITEMS[start : start + batch]
        torch.manual_seed(seed_of(start))
        texts = generator.generate([it.prompt for it in chunk], sampling, n=k).texts
        out += digits.reward_fn([it for it in chunk for _ in range(k)], texts)
    return out


def verdicts(results: list[RewardResult]) -> list[tuple[float | None, bool]]:
    return [(r.reward, r.passed) for r in results]


def test_it_yields_each_batch_with_what_the_serial_loop_judges(base):
    model, tokenizer = base
    generator, sampling = DecodeGenerator(model, tokenizer), SamplingConfig(max_new_tokens=12)
    batches = list(
        judged_batches(
            generator, ITEMS, digits.reward_fn, sampling, 3,
            prompts_per_batch=16, seed_of=lambda start: 5 + start, workers=4,
        )
    )  # fmt: skip
    assert [list(chunk) for chunk, _ in batches] == [ITEMS[:16], ITEMS[16:32], ITEMS[32:]]
    assert [len(results) for _, results in batches] == [48, 48, 24]
    expected = serial(generator, sampling, 3, 16, lambda start: 5 + start)
    assert verdicts([r for _, results in batches for r in results]) == verdicts(expected)


def test_it_scores_greedy_samples_as_the_hf_generate_loop_did(base):
    model, tokenizer = base
    greedy = SamplingConfig(max_new_tokens=12, temperature=0.0)
    batches = judged_batches(
        DecodeGenerator(model, tokenizer), ITEMS, digits.reward_fn, greedy, 1,
        prompts_per_batch=64, seed_of=lambda start: start,
    )  # fmt: skip
    ours = [r for _, results in batches for r in results]
    before = serial(HFGenerator(model, tokenizer), greedy, 1, 16, lambda start: start)
    assert verdicts(ours) == verdicts(before)
    assert 0 < sum(r.passed for r in ours) < len(ITEMS)  # a score that could differ


class Recorder:
    """A generator stub that counts its calls; texts are the prompts' digits."""

    def __init__(self) -> None:
        self.calls = 0
        self.second_call = threading.Event()

    def generate(self, prompts, sampling, n=1):
        self.calls += 1
        if self.calls == 2:
            self.second_call.set()
        return type("Out", (), {"texts": [p for p in prompts for _ in range(n)]})()


def test_it_judges_a_batch_while_the_next_one_generates():
    generator = Recorder()

    def waits_for_the_next_batch(items, completions):
        # Returns only if the second batch starts generating while the first is judged.
        assert generator.second_call.wait(timeout=30)
        return [RewardResult(1.0, passed=True) for _ in completions]

    batches = judged_batches(
        generator, ITEMS[:4], waits_for_the_next_batch, SamplingConfig(), 2,
        prompts_per_batch=2, seed_of=lambda start: start, workers=1,
    )  # fmt: skip
    assert [len(results) for _, results in batches] == [4, 4]

"""Evaluation throughput: the platform's evaluation loop against `generate` plus the verifier.

Both sides evaluate the demo's tiny base (a 2-layer, width-128 Llama-style model SFT-ed on
the flawed digit-sorting teacher, built here as bench/generation.py builds it) on `--tasks`
held-out digit-sorting tasks (`training.digits.held_out`, lists of 2-8 digits) with the
evaluation job's defaults: k=4 samples per task, temperature 1, up to 16 new tokens, no
top-k / top-p, one thread. Each sample is judged by the digit-sort family's default verifier
spec (`tasks_app.families.digit_sort.default_verifier`) through the reward function an
evaluation job builds from it (`experiments.adapters.verifier_reward_fn`).

Ours: the loop an evaluation job runs (`training.evaluation.judged_batches` with the
generator `make_generator` picks, the job's batch size and verification threads: each
batch's verification overlaps the next batch's generation). Anchor: what a user writes:
batches of the same prompts, one `model.generate(..., num_return_sequences=k)` with the KV
cache each, decode the texts, call the same verifier on each. The sides alternate over
`--rounds` rounds on the same tasks.

Identical scores: sampling draws differ between the two samplers, so the scores are compared
greedily (temperature 0, k=1) on every task: `scores_equal` says whether both sides pass
exactly the same tasks, with each side's greedy pass rate. The sampled pass rates (k=4, over
all rounds) agree within sampling noise.

lm-evaluation-harness is not the anchor: it is not installed here, and it cannot express
this task (a local model sampled k times per prompt, judged by the platform's layered
verifier spec rather than one of its metric functions).

Prints one JSON line; `ratio` = our tasks/s over the anchor's.

    python bench/eval_throughput.py [--tasks 1000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import median

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from experiments.adapters import verifier_reward_fn  # noqa: E402
from tasks_app.families import digit_sort  # noqa: E402
from training import digits  # noqa: E402
from training.config import SamplingConfig  # noqa: E402
from training.decode import make_generator  # noqa: E402
from training.demo import cached_base  # noqa: E402
from training.evaluation import (  # noqa: E402
    EVAL_PROMPTS_PER_BATCH,
    EVAL_VERIFICATION_WORKERS,
    judged_batches,
)
from training.interfaces import Item, RewardFn  # noqa: E402

K, TEMPERATURE, MAX_NEW, SEED = 4, 1.0, 16, 0
Side = Callable[[Sequence[Item], SamplingConfig, int], list[bool]]


def tasks(n: int) -> list[Item]:
    """Held-out digit lists as an evaluation job sees them: the family's prompt and answer."""
    out = []
    for item in digits.held_out(n, 2, 8):
        task = digit_sort.make_task(item.payload["digits"])
        out.append(Item(task.prompt, task.expected, task.family, task.difficulty))
    return out


def platform_side(model, tokenizer, reward_fn: RewardFn) -> Side:
    def run(items: Sequence[Item], sampling: SamplingConfig, k: int) -> list[bool]:
        generator = make_generator(sampling, model, tokenizer)
        batches = judged_batches(
            generator, items, reward_fn, sampling, k,
            prompts_per_batch=EVAL_PROMPTS_PER_BATCH, seed_of=lambda start: SEED + start,
            workers=EVAL_VERIFICATION_WORKERS,
        )  # fmt: skip
        return [bool(r.passed) for _, results in batches for r in results]

    return run


def anchor_side(model, tokenizer, reward_fn: RewardFn) -> Side:
    def run(items: Sequence[Item], sampling: SamplingConfig, k: int) -> list[bool]:
        passed = []
        for start in range(0, len(items), EVAL_PROMPTS_PER_BATCH):
            chunk = items[start : start + EVAL_PROMPTS_PER_BATCH]
            torch.manual_seed(SEED + start)
            texts = hf_generate(model, tokenizer, [it.prompt for it in chunk], sampling, k)
            rows = [item for item in chunk for _ in range(k)]
            passed += [bool(r.passed) for r in reward_fn(rows, texts)]
        return passed

    return run


def hf_generate(model, tokenizer, prompts: list[str], sampling: SamplingConfig, k: int):
    enc = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
    sample = {"do_sample": True, "temperature": sampling.temperature, "top_k": 0, "top_p": 1.0}
    out = model.generate(
        **enc,
        **(sample if sampling.temperature else {"do_sample": False}),
        max_new_tokens=sampling.max_new_tokens,
        num_return_sequences=k,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return tokenizer.batch_decode(out[:, enc["input_ids"].shape[1] :], skip_special_tokens=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(run(Path(tmp) / "base", args.tasks, args.rounds)))


def run(base: Path, n_tasks: int, rounds: int) -> dict:
    model, tokenizer = cached_base(base, sft_steps=600, seed=SEED)
    model.eval()
    reward_fn = verifier_reward_fn(digit_sort.default_verifier())
    items = tasks(n_tasks)
    sides = {
        "ours": platform_side(model, tokenizer, reward_fn),
        "anchor": anchor_side(model, tokenizer, reward_fn),
    }
    greedy = SamplingConfig(max_new_tokens=MAX_NEW, temperature=0.0)
    scores = {name: side(items, greedy, 1) for name, side in sides.items()}
    sampling = SamplingConfig(max_new_tokens=MAX_NEW, temperature=TEMPERATURE)
    seconds = {"ours": 0.0, "anchor": 0.0}
    passes = {"ours": 0, "anchor": 0}
    ratios = []
    with torch.no_grad():
        for round_ in range(rounds):
            order = list(sides) if round_ % 2 == 0 else list(sides)[::-1]
            per_round = {}
            for name in order:
                started = time.perf_counter()
                passes[name] += sum(sides[name](items, sampling, K))
                per_round[name] = time.perf_counter() - started
                seconds[name] += per_round[name]
            ratios.append(per_round["anchor"] / per_round["ours"])
    evaluated = rounds * n_tasks
    ours_rate, anchor_rate = evaluated / seconds["ours"], evaluated / seconds["anchor"]
    samples = rounds * n_tasks * K
    return {
        "bench": "eval_throughput",
        "ours": round(ours_rate, 1),
        "anchor": round(anchor_rate, 1),
        "unit": "tasks/s",
        "ratio": round(ours_rate / anchor_rate, 3),
        "scores_equal": scores["ours"] == scores["anchor"],
        "greedy_pass_rate_ours": round(sum(scores["ours"]) / n_tasks, 4),
        "greedy_pass_rate_anchor": round(sum(scores["anchor"]) / n_tasks, 4),
        "sampled_pass_rate_ours": round(passes["ours"] / samples, 4),
        "sampled_pass_rate_anchor": round(passes["anchor"] / samples, 4),
        "round_ratio_min": round(min(ratios), 3),
        "round_ratio_median": round(median(ratios), 3),
        "round_ratio_max": round(max(ratios), 3),
        "tasks": n_tasks,
        "k": K,
        "rounds": rounds,
    }


if __name__ == "__main__":
    main()

"""Rollout generation: the engine's decode loop against Hugging Face `generate`.

Both sides sample from the demo's tiny base (a 2-layer, width-128 Llama-style model SFT-ed
on the flawed digit-sorting teacher, built here as bench/rl_vs_trl.py builds it) with the
demo's settings: 64 prompts x 8 completions per batch, up to 12 new tokens, temperature 1,
no top-k / top-p, one thread. Ours: `DecodeGenerator.generate` (tokenize, decode loop,
log-probs, masks and texts). Anchor: what a user of `generate` writes: tokenize, one
`model.generate(..., num_return_sequences=8)` with the KV cache, decode the texts. The sides
alternate over `--rounds` rounds of `--batches` batches each, on the same prompts.

Prints one JSON line; `ratio` = our completions/s over HF's. Extra keys: the spread of the
per-round ratios, and the mean completion length of each side (the same distribution, so
they should agree within sampling noise).

    python bench/generation.py [--rounds 5] [--batches 4]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training import digits  # noqa: E402
from training.config import SamplingConfig  # noqa: E402
from training.decode import DecodeGenerator  # noqa: E402
from training.demo import cached_base  # noqa: E402

PROMPTS, GROUP, MAX_NEW, SEED = 64, 8, 12, 0


def hf_generate(model, tokenizer, prompts: list[str]) -> torch.Tensor:
    """The anchor: completion lengths (B,) of one `generate` call, texts decoded."""
    enc = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
    out = model.generate(
        **enc,
        do_sample=True,
        temperature=1.0,
        top_k=0,
        top_p=1.0,
        max_new_tokens=MAX_NEW,
        num_return_sequences=GROUP,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    completions = out[:, enc["input_ids"].shape[1] :]
    tokenizer.batch_decode(completions, skip_special_tokens=True)
    is_eos = completions == tokenizer.eos_token_id
    return torch.where(is_eos.any(1), is_eos.int().argmax(1) + 1, completions.shape[1])


def timed(fn, batches: list[list[str]]) -> tuple[float, list[float]]:
    """Seconds for every batch, and the completion lengths it sampled."""
    lengths: list[float] = []
    start = time.perf_counter()
    for prompts in batches:
        lengths += fn(prompts).float().tolist()
    return time.perf_counter() - start, lengths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batches", type=int, default=4, help="batches per side per round")
    args = parser.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(run(Path(tmp) / "base", args.rounds, args.batches)))


def run(base: Path, rounds: int, batches_per_round: int) -> dict:
    model, tokenizer = cached_base(base, sft_steps=600, seed=SEED)
    model.eval()
    engine = DecodeGenerator(model, tokenizer)
    sampling = SamplingConfig(max_new_tokens=MAX_NEW, temperature=1.0)
    sampler = digits.DigitSortSampler(2, 6, seed=SEED + 1)  # the demo's training prompts

    def ours(prompts: list[str]) -> torch.Tensor:
        return engine.generate(prompts, sampling, n=GROUP).lengths

    def anchor(prompts: list[str]) -> torch.Tensor:
        return hf_generate(model, tokenizer, prompts)

    torch.manual_seed(SEED)
    warm = [[it.prompt for it in sampler.sample(PROMPTS)]]
    timed(ours, warm), timed(anchor, warm)
    seconds = {"ours": 0.0, "anchor": 0.0}
    lengths: dict[str, list[float]] = {"ours": [], "anchor": []}
    ratios = []
    with torch.no_grad():
        for round_ in range(rounds):
            batches = [
                [it.prompt for it in sampler.sample(PROMPTS)] for _ in range(batches_per_round)
            ]
            sides = [("ours", ours), ("anchor", anchor)]
            per_round = {}
            for name, fn in sides if round_ % 2 == 0 else sides[::-1]:
                s, sampled = timed(fn, batches)
                seconds[name] += s
                lengths[name] += sampled
                per_round[name] = s
            ratios.append(per_round["anchor"] / per_round["ours"])
    completions = rounds * batches_per_round * PROMPTS * GROUP
    ours_rate, anchor_rate = completions / seconds["ours"], completions / seconds["anchor"]
    return {
        "bench": "generation",
        "ours": round(ours_rate, 1),
        "anchor": round(anchor_rate, 1),
        "unit": "completions/s",
        "ratio": round(ours_rate / anchor_rate, 3),
        "round_ratio_min": round(min(ratios), 3),
        "round_ratio_median": round(median(ratios), 3),
        "round_ratio_max": round(max(ratios), 3),
        "rounds": rounds,
        "completions_per_side": completions,
        "mean_length_ours": round(sum(lengths["ours"]) / len(lengths["ours"]), 4),
        "mean_length_anchor": round(sum(lengths["anchor"]) / len(lengths["anchor"]), 4),
    }


if __name__ == "__main__":
    main()

"""GRPO throughput, result and memory: our engine against TRL's GRPOTrainer, over seeds.

Both sides start from the same tiny base (a 2-layer, width-128 Llama-style model SFT-ed on
the flawed digit-sorting teacher, built once here with seed 0) and run the same GRPO setup:
64 prompts x 8 completions per step, completions up to 12 tokens at temperature 1, learning
rate 5e-4, constant schedule, AdamW betas (0.9, 0.99), gradient clip 1.0, no KL, token-level
loss, the same pass/fail reward (training.digits.pass_fail_reward_fn, as the demo), one
thread each. By default ours runs that very algorithm; with `--dynamic-sampling` it also
refills the groups whose rewards are all equal (DAPO), as a user of ours would, so it
generates more completions per trained one (`generated_per_s_ours`). Each seed sets the
training seed and the prompt stream of both sides; the runs are interleaved (ours s0, TRL
s0, ours s1, ...) and each is its own subprocess, so its peak RSS is its own.

Prints one JSON line; `ours`/`anchor` are mean completions/s over the seeds and `ratio` is
their quotient. Extra keys, each as `_mean`, `_spread` ([min, max]), `_std` (sample) and
`_per_seed`: completions/s, held-out success after training (`heldout_ours`,
`heldout_anchor`; 512 lists of 2-8 digits, sampled at temperature 1 with one fixed seed;
`heldout_base` before training), peak RSS in MB and the time split (generation /
verification / update seconds) of each side.

    python bench/rl_vs_trl.py [--steps 100] [--seeds 0 1 2] [--dynamic-sampling]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PROMPTS, GROUP, MAX_NEW, LR, BETAS = 64, 8, 12, 5e-4, (0.9, 0.99)
BASE_SEED, EVAL_SEED = 0, 0  # one base model and one held-out draw for every run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument(
        "--dynamic-sampling",
        action="store_true",
        help="ours refills all-pass and all-fail groups (DAPO), which TRL cannot",
    )
    parser.add_argument("--side", choices=["ours", "trl"], help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--base", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:
        run = run_ours if args.side == "ours" else run_trl
        result = run(args.base, args.steps, args.seed, args.dynamic_sampling)
        result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        return
    runs: dict[str, list[dict]] = {"ours": [], "trl": []}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        side("ours", base, 0, BASE_SEED)  # builds the base
        for seed in args.seeds:  # interleaved, so a change in load hits both sides alike
            for name in ("ours", "trl"):
                runs[name].append(side(name, base, args.steps, seed, args.dynamic_sampling))
                print(f"{name} seed {seed}: {json.dumps(runs[name][-1])}", file=sys.stderr)
    ours, anchor = runs["ours"], runs["trl"]
    ours_cps = [r["completions_per_s"] for r in ours]
    anchor_cps = [r["completions_per_s"] for r in anchor]
    line = {
        "bench": "rl_vs_trl",
        "ours": round(statistics.mean(ours_cps), 1),
        "anchor": round(statistics.mean(anchor_cps), 1),
        "unit": "completions/s",
        "ratio": round(statistics.mean(ours_cps) / statistics.mean(anchor_cps), 3),
        "steps": args.steps,
        "seeds": args.seeds,
        "dynamic_sampling": args.dynamic_sampling,
        **summary("generated_per_s_ours", [r["generated_per_s"] for r in ours], 1),
        **summary("completions_per_s_ours", ours_cps, 1),
        **summary("completions_per_s_anchor", anchor_cps, 1),
        **summary("heldout_ours", [r["held_out_success"] for r in ours], 4),
        **summary("heldout_anchor", [r["held_out_success"] for r in anchor], 4),
        "heldout_base": ours[0]["base_success"],
        **summary("peak_rss_mb_ours", [r["peak_rss_mb"] for r in ours], 0),
        **summary("peak_rss_mb_anchor", [r["peak_rss_mb"] for r in anchor], 0),
    }
    for key, results in (("time_split_ours", ours), ("time_split_anchor", anchor)):
        for phase in results[0]["time_split"]:
            line.update(summary(f"{key}_{phase}_s", [r["time_split"][phase] for r in results], 2))
    print(json.dumps(line))


def summary(key: str, values: list[float], digits: int) -> dict:
    """`key_mean`, `key_spread` ([min, max]), `key_std` (sample) and `key_per_seed`."""
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return {
        f"{key}_mean": round(statistics.mean(values), digits),
        f"{key}_spread": [round(min(values), digits), round(max(values), digits)],
        f"{key}_std": round(std, digits + 1),
        f"{key}_per_seed": [round(v, digits) for v in values],
    }


def side(name: str, base: Path, steps: int, seed: int, dynamic: bool = False) -> dict:
    command = [sys.executable, __file__, "--side", name, "--base", str(base)]
    command += ["--steps", str(steps), "--seed", str(seed)]
    command += ["--dynamic-sampling"] if dynamic else []
    out = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def setup(base: Path):
    import torch

    from training.demo import cached_base

    torch.set_num_threads(1)
    return cached_base(base, sft_steps=600, seed=BASE_SEED)


def held_out_success(model, tokenizer) -> float:
    from training import digits
    from training.evaluation import evaluate

    items = digits.held_out(512)
    result = evaluate(
        model,
        tokenizer,
        items,
        digits.reward_fn,
        temperature=1.0,
        max_new_tokens=MAX_NEW,
        seed=EVAL_SEED,
    )
    return round(result.success, 4)


def run_ours(base: Path, steps: int, seed: int, dynamic: bool) -> dict:
    from training import digits
    from training.config import GRPOConfig, SamplingConfig
    from training.engine import train
    from training.interfaces import MemorySink

    model, tokenizer = setup(base)
    if steps == 0:
        return {}
    before = held_out_success(model, tokenizer)
    config = GRPOConfig(
        max_steps=steps,
        prompts_per_step=PROMPTS,
        group_size=GROUP,
        learning_rate=LR,
        adam_betas=BETAS,
        sampling=SamplingConfig(max_new_tokens=MAX_NEW),
        dynamic_sampling=dynamic,
        seed=seed,
    )
    sink = MemorySink()
    start = time.perf_counter()
    train(
        config,
        sampler=digits.DigitSortSampler(2, 6, seed=seed + 1),
        reward_fn=digits.pass_fail_reward_fn,
        sink=sink,
        model=model,
        tokenizer=tokenizer,
    )
    seconds = time.perf_counter() - start
    split = {
        phase: round(sum(m.get(f"time/{phase}_s", 0.0) for _, m in sink.rows), 2)
        for phase in ("generation", "verification", "update")
    }
    generated = sum(m.get("dynamic_sampling/prompts_generated", PROMPTS) for _, m in sink.rows)
    return {
        "completions_per_s": steps * PROMPTS * GROUP / seconds,
        "generated_per_s": generated * GROUP / seconds,
        "seconds": round(seconds, 1),
        "held_out_success": held_out_success(model, tokenizer),
        "base_success": before,
        "time_split": split,
    }


def run_trl(base: Path, steps: int, seed: int, _dynamic: bool) -> dict:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from training import digits as sort_digits

    model, tokenizer = setup(base)
    items = sort_digits.DigitSortSampler(2, 6, seed=seed + 1).sample(steps * PROMPTS)
    dataset = Dataset.from_list(
        [{"prompt": it.prompt, "digits": it.payload["digits"]} for it in items]
    )
    timers = {"generation": 0.0, "verification": 0.0}

    def correct(completions, digits, **_):  # the same reward function as ours
        start = time.perf_counter()
        items = [sort_digits.make_item(d) for d in digits]
        results = sort_digits.pass_fail_reward_fn(items, completions)
        timers["verification"] += time.perf_counter() - start
        return [r.reward for r in results]

    generate = model.generate

    def timed_generate(*args, **kwargs):
        start = time.perf_counter()
        try:
            return generate(*args, **kwargs)
        finally:
            timers["generation"] += time.perf_counter() - start

    model.generate = timed_generate
    args = GRPOConfig(
        output_dir=str(base.parent / "trl"),
        per_device_train_batch_size=PROMPTS * GROUP,
        num_generations=GROUP,
        max_completion_length=MAX_NEW,
        learning_rate=LR,
        adam_beta1=BETAS[0],
        adam_beta2=BETAS[1],
        lr_scheduler_type="constant",
        max_steps=steps,
        beta=0.0,
        temperature=1.0,
        top_k=0,
        max_grad_norm=1.0,
        loss_type="dapo",
        scale_rewards="group",
        use_cpu=True,
        bf16=False,
        report_to="none",
        save_strategy="no",
        logging_steps=max(steps // 5, 1),
        seed=seed,
        shuffle_dataset=False,
        dataloader_num_workers=0,
        disable_tqdm=True,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=correct,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
    )
    start = time.perf_counter()
    trainer.train()
    seconds = time.perf_counter() - start
    split = {**timers, "update": seconds - sum(timers.values())}
    return {
        "completions_per_s": steps * PROMPTS * GROUP / seconds,
        "seconds": round(seconds, 1),
        "held_out_success": held_out_success(trainer.model, tokenizer),
        "time_split": {k: round(v, 2) for k, v in split.items()},
    }


if __name__ == "__main__":
    main()

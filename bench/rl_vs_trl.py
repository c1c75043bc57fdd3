"""GRPO throughput, result and memory: our engine against TRL's GRPOTrainer.

Both sides start from the same tiny base (a 2-layer, width-128 Llama-style model SFT-ed on
the flawed digit-sorting teacher, built once here) and run the same GRPO setup: 16 prompts
x 8 completions per step, completions up to 12 tokens at temperature 1, learning rate 5e-4,
constant schedule, AdamW betas (0.9, 0.99), gradient clip 1.0, no KL, token-level loss,
the same pass/fail reward (training.digits.pass_fail_reward_fn, as the demo), one thread each. Each side runs in its own subprocess so its peak RSS is its own.

Prints one JSON line; `ratio` = our completions/s over TRL's. Extra keys: held-out success
after training (512 lists of 2-8 digits, sampled at temperature 1), peak RSS in MB and the
time split (generation / verification / update seconds) of each side.

    python bench/rl_vs_trl.py [--steps 100]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PROMPTS, GROUP, MAX_NEW, LR, BETAS, SEED = 64, 8, 12, 5e-4, (0.9, 0.99), 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--side", choices=["ours", "trl"], help=argparse.SUPPRESS)
    parser.add_argument("--base", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:
        result = (
            run_ours(args.base, args.steps)
            if args.side == "ours"
            else run_trl(args.base, args.steps)
        )
        result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        return
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(
            [sys.executable, __file__, "--side", "ours", "--base", str(base), "--steps", "0"],
            check=True,
            capture_output=True,
        )  # builds the base
        ours = side("ours", base, args.steps)
        anchor = side("trl", base, args.steps)
    print(
        json.dumps(
            {
                "bench": "rl_vs_trl",
                "ours": round(ours["completions_per_s"], 1),
                "anchor": round(anchor["completions_per_s"], 1),
                "unit": "completions/s",
                "ratio": round(ours["completions_per_s"] / anchor["completions_per_s"], 3),
                "steps": args.steps,
                "held_out_success_ours": ours["held_out_success"],
                "held_out_success_anchor": anchor["held_out_success"],
                "held_out_success_base": ours["base_success"],
                "peak_rss_mb_ours": round(ours["peak_rss_mb"]),
                "peak_rss_mb_anchor": round(anchor["peak_rss_mb"]),
                "time_split_ours": ours["time_split"],
                "time_split_anchor": anchor["time_split"],
            }
        )
    )


def side(name: str, base: Path, steps: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--side", name, "--base", str(base), "--steps", str(steps)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def setup(base: Path):
    import torch

    from training.demo import cached_base

    torch.set_num_threads(1)
    return cached_base(base, sft_steps=600, seed=SEED)


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
        seed=SEED,
    )
    return round(result.success, 4)


def run_ours(base: Path, steps: int) -> dict:
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
        seed=SEED,
    )
    sink = MemorySink()
    start = time.perf_counter()
    train(
        config,
        sampler=digits.DigitSortSampler(2, 6, seed=SEED + 1),
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
    return {
        "completions_per_s": steps * PROMPTS * GROUP / seconds,
        "seconds": round(seconds, 1),
        "held_out_success": held_out_success(model, tokenizer),
        "base_success": before,
        "time_split": split,
    }


def run_trl(base: Path, steps: int) -> dict:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from training import digits as sort_digits

    model, tokenizer = setup(base)
    items = sort_digits.DigitSortSampler(2, 6, seed=SEED + 1).sample(steps * PROMPTS)
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
        seed=SEED,
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

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
from collections.abc import Callable
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
    line = {
        **compare("rl_vs_trl", runs["ours"], runs["trl"]),
        "steps": args.steps,
        "seeds": args.seeds,
        "dynamic_sampling": args.dynamic_sampling,
        **summary("generated_per_s_ours", [r["generated_per_s"] for r in runs["ours"]], 1),
    }
    print(json.dumps(line))


def compare(
    bench: str,
    ours: list[dict],
    anchor: list[dict],
    *,
    rate: str = "completions_per_s",
    unit: str = "completions/s",
) -> dict:
    """The keys every GRPO-against-TRL bench prints, from each side's per-seed results:
    the throughput (each result's `rate`, in `unit`), held-out success, peak RSS and the
    time split."""
    ours_cps = [r[rate] for r in ours]
    anchor_cps = [r[rate] for r in anchor]
    line = {
        "bench": bench,
        "ours": round(statistics.mean(ours_cps), 1),
        "anchor": round(statistics.mean(anchor_cps), 1),
        "unit": unit,
        "ratio": round(statistics.mean(ours_cps) / statistics.mean(anchor_cps), 3),
        **summary(f"{rate}_ours", ours_cps, 1),
        **summary(f"{rate}_anchor", anchor_cps, 1),
        **summary("heldout_ours", [r["held_out_success"] for r in ours], 4),
        **summary("heldout_anchor", [r["held_out_success"] for r in anchor], 4),
        **({"heldout_base": ours[0]["base_success"]} if "base_success" in ours[0] else {}),
        **summary("peak_rss_mb_ours", [r["peak_rss_mb"] for r in ours], 0),
        **summary("peak_rss_mb_anchor", [r["peak_rss_mb"] for r in anchor], 0),
    }
    for key, results in (("time_split_ours", ours), ("time_split_anchor", anchor)):
        for phase in results[0]["time_split"]:
            line.update(summary(f"{key}_{phase}_s", [r["time_split"][phase] for r in results], 2))
    return line


def summary(key: str, values: list[float], digits: int) -> dict:
    """`key_mean`, `key_spread` ([min, max]), `key_std` (sample) and `key_per_seed`."""
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return {
        f"{key}_mean": round(statistics.mean(values), digits),
        f"{key}_spread": [round(min(values), digits), round(max(values), digits)],
        f"{key}_std": round(std, digits + 1),
        f"{key}_per_seed": [round(v, digits) for v in values],
    }


def side(
    name: str,
    base: Path,
    steps: int,
    seed: int,
    dynamic: bool = False,
    *,
    script: str = __file__,
    extra: tuple[str, ...] = (),
) -> dict:
    """One side's run of `script` in its own process (its peak RSS its own): its JSON result."""
    command = [sys.executable, script, "--side", name, "--base", str(base)]
    command += ["--steps", str(steps), "--seed", str(seed), *extra]
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
    model, tokenizer = setup(base)
    if steps == 0:
        return {}
    config = grpo_config(steps, seed, dynamic_sampling=dynamic)
    return train_ours(config, model, tokenizer, held_out_success)


def run_trl(base: Path, steps: int, seed: int, _dynamic: bool) -> dict:
    model, tokenizer = setup(base)
    args = trl_config(base.parent / "trl", steps, seed)
    return train_trl(args, model, tokenizer, held_out_success)


def grpo_config(
    steps: int,
    seed: int,
    *,
    prompts: int = PROMPTS,
    max_new: int = MAX_NEW,
    learning_rate: float = LR,
    **extra,
):
    """Our GRPOConfig for the setup both sides share (`trl_config` is TRL's); `extra` sets
    more of its fields."""
    from training.config import GRPOConfig, SamplingConfig

    return GRPOConfig(
        max_steps=steps,
        prompts_per_step=prompts,
        group_size=GROUP,
        learning_rate=learning_rate,
        adam_betas=BETAS,
        sampling=SamplingConfig(max_new_tokens=max_new),
        seed=seed,
        **extra,
    )


def train_ours(config, model, tokenizer, held_out: Callable, **train_kwargs) -> dict:
    """Our GRPO run of `config` on lists of 2-6 digits (drawn with seed `config.seed + 1`),
    timed, with held-out success before and after (`held_out(model, tokenizer)`)."""
    from training import digits
    from training.engine import train
    from training.interfaces import MemorySink

    before = held_out(model, tokenizer)
    sink = MemorySink()
    start = time.perf_counter()
    result = train(
        config,
        sampler=digits.DigitSortSampler(2, 6, seed=config.seed + 1),
        reward_fn=digits.pass_fail_reward_fn,
        sink=sink,
        model=model,
        tokenizer=tokenizer,
        **train_kwargs,
    )
    seconds = time.perf_counter() - start
    split = {
        phase: round(sum(m.get(f"time/{phase}_s", 0.0) for _, m in sink.rows), 2)
        for phase in ("generation", "verification", "update")
    }
    prompts, group = config.prompts_per_step, config.group_size
    generated = sum(m.get("dynamic_sampling/prompts_generated", prompts) for _, m in sink.rows)
    return {
        "completions_per_s": config.max_steps * prompts * group / seconds,
        "generated_per_s": generated * group / seconds,
        "seconds": round(seconds, 1),
        "held_out_success": held_out(result.model, tokenizer),
        "base_success": before,
        "time_split": split,
    }


def train_trl(args, model, tokenizer, held_out: Callable, *, chat: bool = False, peft_config=None):
    """TRL's GRPOTrainer run of `args` on the prompts ours draws (lists of 2-6 digits, seed
    `args.seed + 1`), rewarded by our pass/fail reward, timed, with held-out success after.
    `chat`: the prompts go as one user turn, which TRL renders with the tokenizer's chat
    template, and the reward reads the reply's content."""
    from datasets import Dataset
    from trl import GRPOTrainer

    from training import digits as sort_digits

    prompts = args.per_device_train_batch_size // args.num_generations
    items = sort_digits.DigitSortSampler(2, 6, seed=args.seed + 1).sample(args.max_steps * prompts)
    dataset = Dataset.from_list(
        [
            {
                "prompt": [{"role": "user", "content": it.prompt}] if chat else it.prompt,
                "digits": it.payload["digits"],
            }
            for it in items
        ]
    )
    timers = {"generation": 0.0, "verification": 0.0}

    def correct(completions, digits, **_):  # the same reward function as ours
        start = time.perf_counter()
        items = [sort_digits.make_item(d) for d in digits]
        texts = [turns[-1]["content"] for turns in completions] if chat else completions
        results = sort_digits.pass_fail_reward_fn(items, texts)
        timers["verification"] += time.perf_counter() - start
        return [r.reward for r in results]

    time_generation(model, timers)
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=correct,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=peft_config,
    )
    start = time.perf_counter()
    trainer.train()
    seconds = time.perf_counter() - start
    split = {**timers, "update": seconds - sum(timers.values())}
    return {
        "completions_per_s": args.max_steps * prompts * args.num_generations / seconds,
        "seconds": round(seconds, 1),
        "held_out_success": held_out(trainer.model, tokenizer),
        "time_split": {k: round(v, 2) for k, v in split.items()},
    }


def time_generation(model, timers: dict[str, float]) -> None:
    """Count the seconds `model.generate` takes into `timers["generation"]`."""
    generate = model.generate

    def timed_generate(*args, **kwargs):
        start = time.perf_counter()
        try:
            return generate(*args, **kwargs)
        finally:
            timers["generation"] += time.perf_counter() - start

    model.generate = timed_generate


def trl_config(
    output_dir: Path,
    steps: int,
    seed: int,
    *,
    prompts: int = PROMPTS,
    group: int = GROUP,
    max_new: int = MAX_NEW,
    learning_rate: float = LR,
):
    """TRL's GRPOConfig for the algorithm ours runs: a constant learning rate, AdamW `BETAS`,
    gradient clip 1.0, no KL, token-level loss (`dapo`), rewards scaled per group, sampling at
    temperature 1 with no top-k, on the CPU in float32, one process."""
    from trl import GRPOConfig

    return GRPOConfig(
        output_dir=str(output_dir),
        per_device_train_batch_size=prompts * group,
        num_generations=group,
        max_completion_length=max_new,
        learning_rate=learning_rate,
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


if __name__ == "__main__":
    main()

"""`python -m training demo [--env guess-number]` and `python -m training run CONFIG.yaml`.

A run file holds the engine config (`algorithm:` picks the dataclass) and a `task:` section
naming the built-in task the CLI trains on; the platform drives `train` with its own tasks.

    algorithm: grpo
    max_steps: 100
    model: {path: var/models/base}     # omit `path` to build the tiny model
    sampling: {max_new_tokens: 12, temperature: 1.0}
    task: {name: sort_digits, min_len: 2, max_len: 6, held_out: 256, held_out_max_len: 8}

`task.prompt_format` (`{kind: chat, system_prompt: ...}`; `training.prompting.PromptFormat`)
puts the task's prompts through the model's chat template; raw text by default.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from training import digits
from training.config import load_config
from training.demo import ENVIRONMENTS, DemoSettings, EnvDemoSettings, run_seeds
from training.engine import run_eval_on, train
from training.field_spec import load
from training.interfaces import DirectoryStore, JsonlSink
from training.prompting import PromptFormat

TASKS = {"sort_digits"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="tiny model: SFT warm start, then GRPO; before/after")
    demo.add_argument(
        "--env",
        choices=ENVIRONMENTS,
        help="train on multi-turn episodes of this environment instead of digit sorting; "
        "each seed's entry adds turns_before and turns_after",
    )
    demo.add_argument("--sft-steps", type=int, help="default: the demo's own")
    demo.add_argument("--grpo-steps", type=int, help="default: the demo's own")
    demo.add_argument("--seed", type=int, default=0, help="first seed")
    demo.add_argument(
        "--seeds",
        type=int,
        default=3,
        help="run seeds --seed .. --seed + N - 1 one after another; a final JSON line holds "
        "each seed's before, after, lift and seconds, the mean lift, its spread and the mean "
        "seconds",
    )
    run = commands.add_parser("run", help="train from a YAML run file")
    run.add_argument("config", type=Path)
    run.add_argument(
        "--out", type=Path, default=Path("var/training"), help="metrics and checkpoints"
    )
    args = parser.parse_args(argv)
    if args.command == "demo":
        if args.seeds < 1:
            parser.error("--seeds: must be at least 1")
        steps = {"sft_steps": args.sft_steps, "grpo_steps": args.grpo_steps}
        chosen = {k: v for k, v in steps.items() if v is not None}
        settings = (EnvDemoSettings if args.env else DemoSettings)(seed=args.seed, **chosen)
        run_seeds(settings, args.seeds)
        return 0
    return run_file(args.config, args.out)


def run_file(path: Path, out: Path) -> int:
    config, task = load_config(path)
    sampler, held_out = build_task(task, config.seed)
    prompt_format = load(PromptFormat, task.get("prompt_format") or {}, "task.prompt_format")
    result = train(
        config,
        sampler=sampler,
        reward_fn=digits.reward_fn,
        sink=JsonlSink(out / "metrics.jsonl"),
        store=DirectoryStore(out / "checkpoints"),
        eval_items=held_out,
        corpus=digits.corpus(seed=config.seed),
        progress_bar=True,
        prompt_format=prompt_format,
    )
    final = run_eval_on(result, config, held_out, digits.reward_fn, prompt_format)
    print(json.dumps({"steps": result.steps, "held_out_success": round(final.success, 4)}))
    return 0


def build_task(task: dict[str, Any], seed: int):
    name = task.get("name", "sort_digits")
    if name not in TASKS:
        raise ValueError(f"task.name: unknown task {name!r}; one of {sorted(TASKS)}")
    sampler = digits.DigitSortSampler(
        task.get("min_len", 2),
        task.get("max_len", 6),
        seed=seed,
        teacher=task.get("teacher", "exact"),
    )
    held_out = digits.held_out(
        task.get("held_out", 256), task.get("min_len", 2), task.get("held_out_max_len", 8)
    )
    return sampler, held_out

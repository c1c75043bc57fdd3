"""Measure each algorithm preset, at the run size it carries, on the demo task.

    python scripts/measure_presets.py [--presets grpo,dapo] [--seed 0] [--eval-every 40]

The demo's tiny model (``training.demo``: 400 SFT steps on the flawed teacher, lists of 2-8
digits) is built once; each preset then trains a copy of it with its own values and run size
(``Preset.config()``: steps, prompts per step, learning rate), drawing list lengths with the
demo's band curriculum, rewarded pass/fail. Held-out success (512 items of lengths 2-8, sampled
at temperature 1) is measured before, every ``--eval-every`` steps and after. One JSON line per
preset: before, after, lift, the track ``[[step, prompts seen, success], ...]`` and seconds.
The figures ``training/presets.py`` states were printed by this script.
"""

from __future__ import annotations

import argparse
import copy
import json
import time

from training import digits
from training.demo import SAMPLING, DemoSettings, base_model, grpo_sampler, held_out_success
from training.engine import train
from training.presets import BY_NAME, PRESETS


def measure(name: str, model, tokenizer, items, before: float, seed: int, every: int) -> dict:
    preset = BY_NAME[name]
    config = preset.config(
        sampling=SAMPLING.__dict__,
        seed=seed,
        cpu_threads=1,
        eval_every=every,
        eval_temperature=1.0,
    )
    start = time.perf_counter()
    result = train(
        config,
        sampler=grpo_sampler(DemoSettings(seed=seed)),
        reward_fn=digits.pass_fail_reward_fn,
        model=copy.deepcopy(model),
        tokenizer=tokenizer,
        eval_items=items,
    )
    after = held_out_success(result.model, tokenizer, items).success
    track = [[step, step * config.prompts_per_step, round(r.success, 4)] for step, r in result.evals]
    return {
        "preset": name,
        "steps": config.max_steps,
        "prompts_per_step": config.prompts_per_step,
        "learning_rate": config.learning_rate,
        "before": round(before, 4),
        "after": round(after, 4),
        "lift": round(after - before, 4),
        "track": track,
        "seconds": round(time.perf_counter() - start, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default=",".join(p.name for p in PRESETS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-every", type=int, default=40)
    args = parser.parse_args()
    settings = DemoSettings(seed=args.seed)
    model, tokenizer = base_model(settings.sft_steps, args.seed, max_len=settings.sft_max_len)
    items = digits.held_out(settings.held_out)
    before = held_out_success(model, tokenizer, items).success
    for name in args.presets.split(","):
        line = measure(name, model, tokenizer, items, before, args.seed, args.eval_every)
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()

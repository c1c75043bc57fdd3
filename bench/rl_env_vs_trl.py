"""GRPO on a multi-turn environment: our engine against TRL's GRPOTrainer, over seeds.

The game is guess-the-number (`training.guessing`, the `python -m training demo --env
guess-number` setup): the opening `guess 3-17?`, one number per assistant turn, the
environment's `<3-9?` / `>11-17?` / `=` / `!3-17?` after each, d + 1 turns for an interval of
2**d - 1 numbers (levels 3-6), at most 3 tokens a turn (a stop token ends one), 7 turns and 96
tokens after the opening, reward 1 when the secret is found (`guessing.reward_fn`). For each
seed both sides start from the same base, the env demo's tiny model SFT-ed for 300 steps on
the flawed teacher's moves with that seed (built once per seed, here), and run the same GRPO:
8 tasks x 8 episodes per step (drawn by `GuessSampler(3, 6, seed + 1)`, the same stream on
both sides), learning rate 5e-4, constant schedule, AdamW betas (0.9, 0.99), gradient clip
1.0, no KL, token-level loss, sampling at temperature 1 with no top-k, environment tokens
masked out of the loss, one thread each.

TRL's side plays the game through `rollout_func`, the GRPOTrainer interface for
environments a trainer drives turn by turn (its `environment_factory` exposes environment
methods as tools, which needs a chat template that renders tool calls; the tiny model has
no chat template). Its rollout keeps a batch of episodes going turn by turn: each turn the
trainer's own generation path (`unwrap_model_for_generation`, `generate` with the trainer's
generation config) samples the next message of every episode still going from its whole
token context, cut after the first stop token; the same `GuessEnvironment` answers it; the
answer's tokens are appended with `env_mask` 0. Each dataset row's prompt is the task (its
interval and secret, as JSON), which the rollout opens as an environment, as
`environment_factory`'s `reset(**row)` would; the model sees only the opening `guess L-H?`.
The reward function is `guessing.reward_fn` on each episode's final state.

Held-out success: 256 tasks of levels 3-6 (`guessing.held_out`), one episode each at
temperature 1 with one fixed seed, by `evaluate_episodes` on each side's trained model.
Episodes/s counts trained episodes over the training call's wall time.

Prints one JSON line; `ours`/`anchor` are mean episodes/s over the seeds and `ratio` is
their quotient. Extra keys, each as `_mean`, `_spread` ([min, max]), `_std` (sample) and
`_per_seed`: episodes/s, held-out success after training (`heldout_ours`, `heldout_anchor`;
`heldout_base` before training) and mean turns of those episodes (`turns_*`), peak RSS in MB
and the time split (generation, the environment included / verification / update seconds).
Each run is its own subprocess (its peak RSS its own), seeds interleaved (base s0, ours s0,
TRL s0, base s1, ...).

200 steps by default: at 80, neither side's held-out success moved off its base (means 0.353
and 0.361 against bases of 0.359 over seeds 0-2), so comparing them compared noise; at 200
both learn (about +14 to +17 points).

    python bench/rl_env_vs_trl.py [--steps 200] [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.rl_vs_trl import compare, grpo_config, side, summary, trl_config  # noqa: E402

PROMPTS, GROUP, LR = 8, 8, 5e-4
MIN_LEVEL, MAX_LEVEL = 3, 6
SFT_STEPS, HELD_OUT = 300, 256
EVAL_SEED = 0  # one held-out draw for every run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--sft-steps", type=int, default=SFT_STEPS)
    parser.add_argument("--held-out", type=int, default=HELD_OUT, help="held-out tasks")
    parser.add_argument("--side", choices=["base", "ours", "trl"], help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--base", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:
        result = run_side(args)
        result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        return
    extra = ("--sft-steps", str(args.sft_steps), "--held-out", str(args.held_out))
    runs: dict[str, list[dict]] = {"base": [], "ours": [], "trl": []}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:  # interleaved, so a change in load hits both sides alike
            base = Path(tmp) / f"base-{seed}"
            for name in ("base", "ours", "trl"):
                result = side(name, base, args.steps, seed, script=__file__, extra=extra)
                runs[name].append(result)
                print(f"{name} seed {seed}: {json.dumps(result)}", file=sys.stderr)
    ours, anchor = runs["ours"], runs["trl"]
    line = {
        **compare("rl_env_vs_trl", ours, anchor, rate="episodes_per_s", unit="episodes/s"),
        **summary("heldout_base", [r["held_out_success"] for r in runs["base"]], 4),
        **summary("turns_ours", [r["held_out_turns"] for r in ours], 3),
        **summary("turns_anchor", [r["held_out_turns"] for r in anchor], 3),
        **summary("turns_base", [r["held_out_turns"] for r in runs["base"]], 3),
        "steps": args.steps,
        "seeds": args.seeds,
        "sft_steps": args.sft_steps,
        "held_out": args.held_out,
    }
    print(json.dumps(line))


def run_side(args: argparse.Namespace) -> dict:
    import torch

    torch.set_num_threads(1)
    if args.side == "base":
        return build_base(args.base, args.seed, args.sft_steps, args.held_out)
    model, tokenizer = load(args.base)
    run = train_ours if args.side == "ours" else train_trl
    return run(model, tokenizer, args.steps, args.seed, args.held_out, args.base.parent)


def load(base: Path):
    from training.config import ModelConfig
    from training.models import load_model

    return load_model(ModelConfig(path=str(base)))


def build_base(base: Path, seed: int, sft_steps: int, held_out: int) -> dict:
    """The env demo's base for `seed`, saved to `base`; its held-out success."""
    from training.demo import EnvDemoSettings, env_base_model
    from training.models import save_model

    settings = EnvDemoSettings(sft_steps=sft_steps, seed=seed)
    model, tokenizer = env_base_model(settings)
    save_model(model, tokenizer, base)
    return held_out_result(*load(base), held_out)


def held_out_result(model, tokenizer, n: int) -> dict:
    from training import guessing
    from training.evaluation import evaluate_episodes

    items = guessing.held_out(n, MIN_LEVEL, MAX_LEVEL)
    result = evaluate_episodes(
        model, tokenizer, items, guessing.environment(), temperature=1.0, seed=EVAL_SEED
    )
    return {
        "held_out_success": round(result.success, 4),
        "held_out_turns": round(result.turns or 0.0, 3),
    }


def train_ours(model, tokenizer, steps: int, seed: int, held_out: int, _tmp: Path) -> dict:
    """Our GRPO on episodes, as the env demo runs it, timed."""
    import dataclasses

    from training import guessing
    from training.demo import ENV_SAMPLING, not_single_turn
    from training.engine import train
    from training.interfaces import MemorySink

    config = grpo_config(steps, seed, prompts=PROMPTS, learning_rate=LR)
    config = dataclasses.replace(config, sampling=ENV_SAMPLING)
    sink = MemorySink()
    start = time.perf_counter()
    result = train(
        config,
        sampler=guessing.GuessSampler(MIN_LEVEL, MAX_LEVEL, seed=seed + 1),
        reward_fn=not_single_turn,
        sink=sink,
        model=model,
        tokenizer=tokenizer,
        environment=guessing.environment(),
    )
    seconds = time.perf_counter() - start
    split = {
        phase: round(sum(m.get(f"time/{phase}_s", 0.0) for _, m in sink.rows), 2)
        for phase in ("generation", "verification", "update")
    }
    return {
        "episodes_per_s": steps * PROMPTS * GROUP / seconds,
        "seconds": round(seconds, 1),
        **held_out_result(result.model, tokenizer, held_out),
        "time_split": split,
    }


def train_trl(model, tokenizer, steps: int, seed: int, held_out: int, tmp: Path) -> dict:
    """TRL's GRPOTrainer on the same episodes through `rollout_func`, timed."""
    import os

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from datasets import Dataset
    from trl import GRPOTrainer

    from training import guessing

    limits = guessing.environment().limits
    tasks = guessing.GuessSampler(MIN_LEVEL, MAX_LEVEL, seed=seed + 1).sample(steps * PROMPTS)
    dataset = Dataset.from_list([{"prompt": json.dumps(task.payload)} for task in tasks])
    timers = {"generation": 0.0, "verification": 0.0}

    def solved(completions, episodes, **_):  # the same reward function as ours
        start = time.perf_counter()
        items = [guessing.make_item(e["secret"], e["low"], e["high"]) for e in episodes]
        rewards = [r.reward for r in guessing.reward_fn(items, [Ended(e) for e in episodes])]
        timers["verification"] += time.perf_counter() - start
        return rewards

    def rollout(prompts: list[str], trainer) -> dict:
        start = time.perf_counter()
        try:
            return play(trainer, [json.loads(p) for p in prompts], limits)
        finally:
            timers["generation"] += time.perf_counter() - start

    args = trl_config(
        tmp / f"trl-{seed}",
        steps,
        seed,
        prompts=PROMPTS,
        group=GROUP,
        max_new=limits.max_total_tokens,  # the episode's tokens after the opening
        learning_rate=LR,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=solved,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        rollout_func=rollout,
    )
    start = time.perf_counter()
    trainer.train()
    seconds = time.perf_counter() - start
    split = {**timers, "update": seconds - sum(timers.values())}
    return {
        "episodes_per_s": steps * PROMPTS * GROUP / seconds,
        "seconds": round(seconds, 1),
        **held_out_result(trainer.model, tokenizer, held_out),
        "time_split": {k: round(v, 2) for k, v in split.items()},
    }


class Ended:
    """An episode as `guessing.reward_fn` reads it: its final state."""

    def __init__(self, state: dict) -> None:
        self.final_state = state


def play(trainer, payloads: list[dict], limits) -> dict:
    """One episode per task, the batch turn by turn with the trainer's generation path: the
    ids of each opening and of everything after it, `env_mask` 0 on the environment's."""
    import copy

    import torch
    from trl.models import unwrap_model_for_generation

    from training import guessing

    tokenizer = trainer.processing_class
    stops = set(trainer.eos_token_ids)

    def encode(text: str) -> list[int]:
        return list(tokenizer(text, add_special_tokens=False)["input_ids"])

    envs = [
        guessing.GuessEnvironment(guessing.make_item(p["secret"], p["low"], p["high"]))
        for p in payloads
    ]
    prompt_ids = [encode(env.prompt) for env in envs]
    ids: list[list[int]] = [[] for _ in envs]
    mask: list[list[int]] = [[] for _ in envs]
    active = list(range(len(envs)))
    with (
        unwrap_model_for_generation(
            trainer.model_wrapped, trainer.accelerator, generation_kwargs=trainer.generation_kwargs
        ) as model,
        torch.no_grad(),
    ):
        for turn in range(limits.max_turns):
            if not active:
                break
            room = max(limits.max_total_tokens - len(ids[i]) for i in active)
            rows = [prompt_ids[i] + ids[i] for i in active]
            width = max(len(r) for r in rows)
            pad = tokenizer.pad_token_id
            input_ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows])
            attention = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows])
            config = copy.copy(trainer.generation_config)
            config.max_new_tokens = min(limits.max_tokens_per_turn, room)
            out = model.generate(
                input_ids=input_ids, attention_mask=attention, generation_config=config
            )
            last = turn == limits.max_turns - 1
            going = []
            for row, i in enumerate(active):
                sampled = out[row, width:].tolist()
                ends = [k for k, t in enumerate(sampled) if t in stops]
                sampled = sampled[: ends[0] + 1] if ends else sampled
                left = limits.max_total_tokens - len(ids[i])
                cut = min(len(sampled), left) == left
                sampled = sampled[:left]
                ids[i] += sampled
                mask[i] += [1] * len(sampled)
                reply = envs[i].reply(tokenizer.decode(sampled, skip_special_tokens=True))
                if reply.done or last or cut:
                    continue
                answer = encode("".join(str(m.get("content") or "") for m in reply.messages))
                ids[i] += answer
                mask[i] += [0] * len(answer)
                if len(ids[i]) < limits.max_total_tokens:
                    going.append(i)
            active = going
    episodes = [{**p, **env.final_state()} for p, env in zip(payloads, envs, strict=True)]
    return {
        "prompt_ids": prompt_ids,
        "completion_ids": ids,
        "logprobs": None,
        "env_mask": mask,
        "episodes": episodes,
    }


if __name__ == "__main__":
    main()

"""GRPO with LoRA on a Qwen2-architecture chat model: our engine against TRL's GRPOTrainer.

The second model of bench/rl_vs_trl.py, with its machinery (subprocess per side and seed,
interleaved seeds, the same JSON keys). The base is a Qwen2 model built here with
`training.tiny_models.build` (random weights, a ChatML tokenizer trained locally, a generation
config whose EOS list holds `<|im_end|>`), then fully SFT-ed in chat format on the flawed
digit-sorting teacher, as the first bench's base is, so GRPO has something to lift. Both sides
then train LoRA adapters on it with the same peft config (rank, alpha, dropout, every
attention and MLP projection), the same prompts as one user turn through the tokenizer's
chat template (ours: `PromptFormat(kind="chat")`; TRL: conversational prompts
`[{"role": "user", ...}]`), completions sampled at temperature 1 up to `MAX_NEW` tokens and
stopped at `<|im_end|>` (both read the model's generation config), the same batch, learning
rate, seed and pass/fail reward, no KL, token-level loss, one thread each.

Held-out success: 512 lists of 2-8 digits in the same chat format, adapters merged, sampled
at temperature 1 with one fixed seed. Prints one JSON line with bench/rl_vs_trl.py's keys.

The default size (width 128, 4 layers, 0.66M parameters) is the one whose base build and
three seeds finish in about ten minutes on two shared CPU cores; `--hidden 1024 --layers 10`
builds the same architecture at about 95M parameters (heads of 64, half as many key/value
heads), for a machine that can train it.

    python bench/rl_vs_trl_chat.py [--steps 15] [--seeds 0 1 2] [--hidden 128] [--layers 4]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.rl_vs_trl import (  # noqa: E402
    compare,
    grpo_config,
    side,
    train_ours,
    train_trl,
    trl_config,
)

PROMPTS, GROUP, MAX_NEW, LR = 32, 8, 12, 2e-3
RANK, ALPHA, DROPOUT = 16, 32, 0.05
SFT_STEPS, SFT_LR = 400, 2e-3
BASE_SEED, EVAL_SEED = 0, 0  # one base model and one held-out draw for every run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--hidden", type=int, default=128, help="the Qwen2 model's width")
    parser.add_argument("--layers", type=int, default=4, help="the Qwen2 model's depth")
    parser.add_argument("--sft-steps", type=int, default=SFT_STEPS)
    parser.add_argument("--side", choices=["ours", "trl"], help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--base", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:
        result = run_side(args)
        result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        return
    size = ("--hidden", str(args.hidden), "--layers", str(args.layers))
    extra = (*size, "--sft-steps", str(args.sft_steps))
    runs: dict[str, list[dict]] = {"ours": [], "trl": []}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        built = side("ours", base, 0, BASE_SEED, script=__file__, extra=extra)  # builds the base
        for seed in args.seeds:  # interleaved, so a change in load hits both sides alike
            for name in ("ours", "trl"):
                runs[name].append(side(name, base, args.steps, seed, script=__file__, extra=extra))
                print(f"{name} seed {seed}: {json.dumps(runs[name][-1])}", file=sys.stderr)
    line = {
        **compare("rl_vs_trl_chat", runs["ours"], runs["trl"]),
        "steps": args.steps,
        "seeds": args.seeds,
        "model": "qwen2-chat-lora",
        "parameters": built["parameters"],
        "hidden": args.hidden,
        "layers": args.layers,
        "lora": {"rank": RANK, "alpha": ALPHA, "dropout": DROPOUT},
    }
    print(json.dumps(line))


def run_side(args: argparse.Namespace) -> dict:
    import torch

    torch.set_num_threads(1)
    base = args.base
    if not (base / "config.json").exists():
        build_base(base, args.hidden, args.layers, args.sft_steps)
    if args.steps == 0:
        model, _ = load(base)
        return {"parameters": sum(p.numel() for p in model.parameters())}
    run = run_ours if args.side == "ours" else run_trl
    return run(base, args.steps, args.seed)


def chat_format():
    from training.prompting import PromptFormat

    return PromptFormat(kind="chat")


def load(base: Path):
    from training.config import ModelConfig
    from training.models import load_model

    return load_model(ModelConfig(path=str(base)))


def build_base(base: Path, hidden: int, layers: int, sft_steps: int) -> None:
    """A Qwen2 chat model SFT-ed (every weight) on the flawed teacher, in chat format."""
    from training import digits, tiny_models
    from training.config import SFTConfig
    from training.engine import train
    from training.models import save_model

    heads = max(hidden // 64, 2)
    tiny_models.build("qwen2", base, hidden=hidden, layers=layers, heads=heads, kv_heads=heads // 2)
    model, tokenizer = load(base)
    config = SFTConfig(
        max_steps=sft_steps,
        prompts_per_step=64,
        learning_rate=SFT_LR,
        lr_schedule="cosine",
        warmup_steps=min(20, sft_steps - 1),
        seed=BASE_SEED,
        cpu_threads=1,
    )
    train(
        config,
        sampler=digits.DigitSortSampler(2, 8, seed=BASE_SEED, teacher="flawed"),
        reward_fn=digits.reward_fn,
        model=model,
        tokenizer=tokenizer,
        prompt_format=chat_format(),
    )
    save_model(model, tokenizer, base)


def held_out_success(model, tokenizer) -> float:
    """Success on the held-out lists, the adapters merged into the weights first."""
    from training import digits
    from training.evaluation import evaluate

    result = evaluate(
        model.merge_and_unload() if hasattr(model, "merge_and_unload") else model,
        tokenizer,
        digits.held_out(512),
        digits.reward_fn,
        temperature=1.0,
        max_new_tokens=MAX_NEW,
        seed=EVAL_SEED,
        prompt_format=chat_format(),
    )
    return round(result.success, 4)


def run_ours(base: Path, steps: int, seed: int) -> dict:
    from training.config import ModelConfig
    from training.lora import LLAMA_STYLE, LoraConfig

    model, tokenizer = load(base)
    lora = LoraConfig(rank=RANK, alpha=ALPHA, dropout=DROPOUT, target_modules=LLAMA_STYLE)
    config = grpo_config(
        steps,
        seed,
        prompts=PROMPTS,
        max_new=MAX_NEW,
        learning_rate=LR,
        model=ModelConfig(path=str(base), lora=lora),
    )
    result = train_ours(config, model, tokenizer, held_out_success, prompt_format=chat_format())
    del result["generated_per_s"]  # no refill here: every generated completion is trained on
    return result


def run_trl(base: Path, steps: int, seed: int) -> dict:
    from peft import LoraConfig

    from training.lora import LLAMA_STYLE

    model, tokenizer = load(base)
    peft_config = LoraConfig(
        r=RANK,
        lora_alpha=ALPHA,
        lora_dropout=DROPOUT,
        target_modules=list(LLAMA_STYLE),
        task_type="CAUSAL_LM",
    )
    args = trl_config(
        base.parent / "trl", steps, seed, prompts=PROMPTS, max_new=MAX_NEW, learning_rate=LR
    )
    return train_trl(args, model, tokenizer, held_out_success, chat=True, peft_config=peft_config)


if __name__ == "__main__":
    main()

"""TRL's GRPOTrainer on the digit-sort task, as an outside trainer's script sets it up: the
dataset, TRL's reward function signature and a small CPU config. The client tests that train
through outages share it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from datasets import Dataset
from transformers import PreTrainedTokenizerBase, TrainerCallback
from trl import GRPOConfig, GRPOTrainer

from training import digits as sort_digits


def correct(completions, digits, **_):  # type: ignore[no-untyped-def] # TRL's signature
    items = [sort_digits.make_item(d) for d in digits]
    return [r.reward for r in sort_digits.pass_fail_reward_fn(items, completions)]


def digit_grpo(
    model_dir: Path,
    tokenizer: PreTrainedTokenizerBase,
    out: Path,
    *,
    steps: int,
    prompts: int,
    callbacks: list[TrainerCallback],
    learning_rate: float = 1e-3,
    **trainer_options: Any,
) -> GRPOTrainer:
    """A GRPOTrainer of ``model_dir`` (TRL loads its reference model by path) on ``prompts``
    digit-sort prompts, 4 completions each, ``steps`` steps logged every step."""
    items = sort_digits.DigitSortSampler(2, 4, seed=1).sample(prompts)
    dataset = Dataset.from_list(
        [{"prompt": it.prompt, "digits": it.payload["digits"]} for it in items]
    )
    args = GRPOConfig(
        output_dir=str(out), per_device_train_batch_size=4, num_generations=4,
        max_completion_length=6, max_steps=steps, beta=0.04, logging_steps=1,
        learning_rate=learning_rate, use_cpu=True, bf16=False, report_to="none",
        save_strategy="no", disable_tqdm=True, seed=0, dataloader_num_workers=0,
    )  # fmt: skip
    return GRPOTrainer(
        model=str(model_dir), reward_funcs=correct, args=args, train_dataset=dataset,
        processing_class=tokenizer, callbacks=callbacks, **trainer_options,
    )  # fmt: skip

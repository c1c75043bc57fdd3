"""Rejection-sampling fine-tuning (RFT; Yuan et al. 2023, arXiv:2308.01825; STaR, Zelikman
et al. 2022): sample G completions per prompt, keep the verified ones, SFT on them."""

from __future__ import annotations

from training import metric_catalogue as metric
from training.sft import sft_on, teacher_rollout
from training.step import Run, rollout, sample_items


def train_step(run: Run) -> dict[str, float]:
    config = run.config
    batch = rollout(run, sample_items(run), config.group_size)
    kept_prompts, kept_answers = [], []
    per_prompt: dict[int, set[str]] = {}
    for row, (item, text, result) in enumerate(
        zip(batch.items, batch.rollout.texts, batch.results, strict=True)
    ):
        answers = per_prompt.setdefault(row // config.group_size, set())
        if result.passed and text not in answers and len(answers) < config.max_kept_per_prompt:
            answers.add(text)
            kept_prompts.append(item.prompt)
            kept_answers.append(text)
    metrics = {**batch.metrics, metric.REJECTION_KEPT_FRAC: len(kept_answers) / len(batch.items)}
    if not kept_answers:
        return metrics
    sft_batch = teacher_rollout(
        run.tokenizer, kept_prompts, kept_answers, run.accelerator.device, run.prompt_format
    )
    sft_metrics = sft_on(run, sft_batch)
    for key in (metric.COMPLETION_TOKENS, metric.COMPLETIONS):
        sft_metrics.pop(key)
    return {**metrics, **sft_metrics}

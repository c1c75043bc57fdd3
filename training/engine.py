"""The entry point `train(...)`: the driver loop around an algorithm's step.

`train` builds the run (accelerator, model, optimizer, schedule, reference model; see
`training.step`), resumes from the store's latest checkpoint, then calls the algorithm's
`train_step(run)` once per step, logging, evaluating and checkpointing between steps.
Algorithms live in their own files and share the helpers in `training.step`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from accelerate import Accelerator
from accelerate.utils import broadcast_object_list, set_seed
from tqdm.auto import tqdm
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from training import metric_catalogue as metric
from training.algorithms import STEP_FUNCTIONS
from training.checkpoint import load_checkpoint, save
from training.config import BaseConfig
from training.episodes import EnvironmentSpec
from training.evaluation import EvalResult, evaluate, evaluate_episodes
from training.interfaces import (
    CheckpointStore,
    Control,
    Item,
    MetricsSink,
    RewardFn,
    RolloutSink,
    SteerableSampler,
    TaskSampler,
)
from training.metrics import Timer
from training.models import load_model
from training.prompting import RAW_FORMAT, PromptFormat
from training.step import Run, build_run, main_decides


@dataclass
class TrainResult:
    steps: int
    stopped: bool
    metrics: dict[str, float]
    evals: list[tuple[int, EvalResult]]
    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase


StepFn = Callable[[Run], dict[str, float]]


def train(
    config: BaseConfig,
    *,
    sampler: TaskSampler,
    reward_fn: RewardFn,
    sink: MetricsSink | None = None,
    store: CheckpointStore | None = None,
    model: PreTrainedModel | None = None,
    tokenizer: PreTrainedTokenizerBase | None = None,
    control: Control | None = None,
    eval_items: Sequence[Item] | None = None,
    corpus: Sequence[str] | None = None,
    progress_bar: bool = False,
    rollout_sink: RolloutSink | None = None,
    prompt_format: PromptFormat = RAW_FORMAT,
    environment: EnvironmentSpec | None = None,
) -> TrainResult:
    """Train `model` (or `config.model`) with `config.algorithm`; see the module docstring.

    `control` (or a sink that also implements Control) is asked `should_stop()` before every
    step and told `progress(step, total, metrics)` after it, on the main process only (its
    answer holds for every process). `eval_items` is the held-out set evaluated every
    `config.eval_every` steps. `corpus` trains the tiny model's tokenizer.
    `rollout_sink` (or a sink that also implements RolloutSink) receives each RL step's
    completions with their verdicts and advantages. `prompt_format` says how prompts become
    model input (raw text, or the tokenizer's chat template) for rollouts and evaluation.
    `environment` makes every rollout row a multi-turn episode (`training.episodes`): the
    environment's reward function judges them, `reward_fn` is not called, and `eval_items`
    are evaluated as episodes.
    """
    config.validate()
    check_environment(config, environment)
    set_seed(config.seed)
    if control is None and isinstance(sink, Control):
        control = sink
    if rollout_sink is None and isinstance(sink, RolloutSink):
        rollout_sink = sink
    if model is None or tokenizer is None:
        model, tokenizer = load_model(config.model, corpus, config.seed)
    run = build_run(config, model, tokenizer, sampler, reward_fn, prompt_format, environment)
    if config.resume and store is not None and (path := store.latest()) is not None:
        load_checkpoint(run, path)
    step_fn = STEP_FUNCTIONS[config.algorithm]
    return _loop(run, step_fn, sink, store, control, eval_items, progress_bar, rollout_sink)


def _loop(
    run, step_fn, sink, store, control, eval_items, progress_bar, rollout_sink=None
) -> TrainResult:
    config, main = run.config, run.accelerator.is_main_process
    bar = tqdm(total=config.max_steps, initial=run.step, disable=not (progress_bar and main))
    metrics: dict[str, float] = {}
    evals: list[tuple[int, EvalResult]] = []
    stopped = False
    while run.step < config.max_steps:
        if control is not None and main_decides(run.accelerator, control.should_stop):
            stopped = True
            break
        if control is not None:
            apply_changes(run, control)
        run.timer = Timer()
        start = time.perf_counter()
        metrics = step_fn(run)
        run.step += 1
        metrics = finish_metrics(run, metrics, time.perf_counter() - start)
        if eval_items and config.eval_every and run.step % config.eval_every == 0:
            result = run_eval(run, eval_items)
            evals.append((run.step, result))
            metrics.update(result.metrics(metric.EVAL_PREFIX))
        if main and sink is not None:
            sink.log(run.step, metrics)
        report_rollouts(run, rollout_sink if main else None)
        if (
            store is not None
            and config.checkpoint_every
            and run.step % config.checkpoint_every == 0
        ):
            save(run, store, metrics)
        if control is not None and main:
            control.progress(run.step, config.max_steps, metrics)
        bar.update(1)
        shown = metric.REWARD_MEAN if metric.REWARD_MEAN in metrics else metric.LOSS_SFT
        bar.set_postfix({shown.split("/")[0]: f"{metrics.get(shown, float('nan')):.3f}"})
    bar.close()
    # A pause keeps its state (it resumes from it); a cancel or a lost run does not.
    keep = not stopped or main_decides(run.accelerator, control.checkpoint_on_stop)
    if (
        store is not None
        and keep
        and main_decides(run.accelerator, lambda: not _saved_at(store, run.step))
    ):
        save(run, store, metrics)
    return TrainResult(run.step, stopped, metrics, evals, run.policy, run.tokenizer)


def apply_changes(run: Run, control: Control) -> None:
    """Hand the changes made to the run since the last step to its sampler, on every process
    alike (each draws the step's prompts from its own copy)."""
    changes = main_answer(run.accelerator, lambda: control.pending_changes(run.step))
    if not changes:
        return
    if not isinstance(run.sampler, SteerableSampler):
        raise ValueError(f"{type(run.sampler).__name__} cannot change while it trains")
    for change in changes:
        run.sampler.apply(change)


def main_answer(acc: Accelerator, ask: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The main process's `ask()` on every process (see `main_decides`)."""
    if acc.num_processes == 1:
        return ask()
    answer = [ask() if acc.is_main_process else None]
    broadcast_object_list(answer, from_process=0)
    return answer[0] or []


def _saved_at(store: CheckpointStore, step: int) -> bool:
    latest = store.latest()
    return latest is not None and latest.name.endswith(f"{step:06d}")


def report_rollouts(run: Run, sink: RolloutSink | None) -> None:
    """Hand the step's completions to `sink`, and let go of the batch either way."""
    batch, run.batch = run.batch, None
    if sink is not None and batch is not None:
        sink.rollouts(run.step, batch.completions())


def finish_metrics(run: Run, metrics: dict[str, float], seconds: float) -> dict[str, float]:
    metrics = {**metrics, **run.timer.metrics()}
    metrics[metric.LEARNING_RATE] = run.scheduler.get_last_lr()[0]
    metrics[metric.STEP_S] = seconds
    if metric.COMPLETION_TOKENS in metrics:
        run.tokens_seen += count_everywhere(run, metrics[metric.COMPLETION_TOKENS])
        metrics[metric.TOKENS_SEEN] = run.tokens_seen
        metrics[metric.TOKENS_PER_S] = metrics.pop(metric.COMPLETION_TOKENS) / seconds
        metrics[metric.COMPLETIONS_PER_S] = metrics.pop(metric.COMPLETIONS) / seconds
    return metrics


def count_everywhere(run: Run, count: float) -> int:
    """`count` summed over processes (each process generates its own share of the step)."""
    if run.accelerator.num_processes == 1:
        return int(count)
    total = torch.tensor([count], dtype=torch.float64, device=run.accelerator.device)
    return int(run.accelerator.reduce(total, reduction="sum").item())


def check_environment(config: BaseConfig, environment: EnvironmentSpec | None) -> None:
    """ValueError naming the field when `config` cannot train on episodes."""
    if environment is None:
        return
    environment.limits.validate()
    if config.algorithm not in metric.GROUPED:
        raise ValueError(
            f"algorithm: episodes train with {' or '.join(metric.GROUPED)} (groups of episodes "
            f"of one task), not {config.algorithm}"
        )
    if getattr(config, "async_verification", False):
        raise ValueError(
            "async_verification: episodes are judged as they end, turn by turn; turn it off"
        )
    if config.sampling.backend == "vllm":
        raise ValueError("sampling.backend: episodes run on the engine or hf backend")


def run_eval(run: Run, items: Sequence[Item]) -> EvalResult:
    if run.environment is not None:
        with run.accelerator.autocast():
            return evaluate_episodes(
                run.policy,
                run.tokenizer,
                items,
                run.environment,
                temperature=run.config.eval_temperature,
                seed=run.config.seed,
                prompt_format=run.prompt_format,
            )
    with run.accelerator.autocast():
        return evaluate(
            run.policy,
            run.tokenizer,
            items,
            run.reward_fn,
            temperature=run.config.eval_temperature,
            max_new_tokens=run.config.sampling.max_new_tokens,
            seed=run.config.seed,
            prompt_format=run.prompt_format,
        )


def run_eval_on(
    result: TrainResult,
    config: BaseConfig,
    items: Sequence[Item],
    reward_fn: RewardFn,
    prompt_format: PromptFormat = RAW_FORMAT,
) -> EvalResult:
    """Evaluate a finished run's model the way `eval_every` does during training."""
    return evaluate(
        result.model,
        result.tokenizer,
        items,
        reward_fn,
        temperature=config.eval_temperature,
        max_new_tokens=config.sampling.max_new_tokens,
        seed=config.seed,
        prompt_format=prompt_format,
    )

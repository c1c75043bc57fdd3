"""The entry point `train(...)` and what every algorithm shares.

`train` builds the run (accelerator, model, optimizer, schedule, reference model), resumes
from the store's latest checkpoint, then calls the algorithm's `train_step(run)` once per
step, logging, evaluating and checkpointing between steps. Algorithms live in their own
files and use the helpers here: `rollout`, `completion_logits` and `update`.
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from tqdm.auto import tqdm
from transformers import PreTrainedModel, PreTrainedTokenizerBase, get_scheduler

from training.config import BaseConfig, RLConfig
from training.evaluation import EvalResult, evaluate
from training.generation import HFGenerator, Rollout
from training.interfaces import (
    CheckpointStore,
    Control,
    Item,
    MetricsSink,
    RewardFn,
    RewardResult,
    TaskSampler,
)
from training.losses import normalize_and_clip
from training.metrics import MetricLists, Timer, completion_metrics, reward_metrics
from training.models import load_model


@dataclass
class Run:
    """Everything a step needs; `train_step(run)` functions read and update it."""

    config: Any
    accelerator: Accelerator
    model: torch.nn.Module  # prepared (possibly DDP/FSDP-wrapped) policy
    tokenizer: PreTrainedTokenizerBase
    optimizer: torch.optim.Optimizer
    scheduler: Any
    sampler: TaskSampler
    reward_fn: RewardFn
    generator: HFGenerator
    ref_model: torch.nn.Module | None = None
    value_head: torch.nn.Module | None = None
    step: int = 0
    timer: Timer = field(default_factory=Timer)

    @property
    def policy(self) -> PreTrainedModel:
        return self.accelerator.unwrap_model(self.model)


@dataclass
class Batch:
    """One step's verified rollout: rows are grouped by prompt (G rows each)."""

    items: list[Item]  # one per row
    rollout: Rollout
    results: list[RewardResult]
    rewards: torch.Tensor  # (B,) normalised and clipped
    metrics: dict[str, float]


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
) -> TrainResult:
    """Train `model` (or `config.model`) with `config.algorithm`; see the module docstring.

    `control` (or a sink that also implements Control) is asked `should_stop()` before every
    step and told `progress(step, total, metrics)` after it. `eval_items` is the held-out set
    evaluated every `config.eval_every` steps. `corpus` trains the tiny model's tokenizer.
    """
    from training.algorithms import STEP_FUNCTIONS  # the algorithm modules import this one

    config.validate()
    set_seed(config.seed)
    if control is None and isinstance(sink, Control):
        control = sink
    if model is None or tokenizer is None:
        model, tokenizer = load_model(config.model, corpus, config.seed)
    run = build_run(config, model, tokenizer, sampler, reward_fn)
    if config.resume and store is not None and (path := store.latest()) is not None:
        from training.checkpoint import load_checkpoint

        load_checkpoint(run, path)
    step_fn = STEP_FUNCTIONS[config.algorithm]
    return _loop(run, step_fn, sink, store, control, eval_items, progress_bar)


def _loop(run, step_fn, sink, store, control, eval_items, progress_bar) -> TrainResult:
    from training.checkpoint import save

    config, main = run.config, run.accelerator.is_main_process
    bar = tqdm(total=config.max_steps, initial=run.step, disable=not (progress_bar and main))
    metrics: dict[str, float] = {}
    evals: list[tuple[int, EvalResult]] = []
    stopped = False
    while run.step < config.max_steps:
        if control is not None and control.should_stop():
            stopped = True
            break
        run.timer = Timer()
        start = time.perf_counter()
        metrics = step_fn(run)
        run.step += 1
        metrics = finish_metrics(run, metrics, time.perf_counter() - start)
        if eval_items and config.eval_every and run.step % config.eval_every == 0:
            result = run_eval(run, eval_items)
            evals.append((run.step, result))
            metrics.update(result.metrics("eval/"))
        if main and sink is not None:
            sink.log(run.step, metrics)
        if (
            store is not None
            and config.checkpoint_every
            and run.step % config.checkpoint_every == 0
        ):
            save(run, store, metrics)
        if control is not None:
            control.progress(run.step, config.max_steps, metrics)
        bar.update(1)
        shown = "reward/mean" if "reward/mean" in metrics else "loss/sft"
        bar.set_postfix({shown.split("/")[0]: f"{metrics.get(shown, float('nan')):.3f}"})
    bar.close()
    if store is not None and not stopped and not _saved_at(store, run.step):
        save(run, store, metrics)
    return TrainResult(run.step, stopped, metrics, evals, run.policy, run.tokenizer)


def _saved_at(store: CheckpointStore, step: int) -> bool:
    latest = store.latest()
    return latest is not None and latest.name.endswith(f"{step:06d}")


def finish_metrics(run: Run, metrics: dict[str, float], seconds: float) -> dict[str, float]:
    metrics = {**metrics, **run.timer.metrics()}
    metrics["learning_rate"] = run.scheduler.get_last_lr()[0]
    metrics["perf/step_s"] = seconds
    if "perf/completion_tokens" in metrics:
        metrics["perf/tokens_per_s"] = metrics.pop("perf/completion_tokens") / seconds
        metrics["perf/completions_per_s"] = metrics.pop("perf/completions") / seconds
    return metrics


def run_eval(run: Run, items: Sequence[Item]) -> EvalResult:
    with run.accelerator.autocast():
        return evaluate(
            run.policy,
            run.tokenizer,
            items,
            run.reward_fn,
            temperature=run.config.eval_temperature,
            max_new_tokens=run.config.sampling.max_new_tokens,
            seed=run.config.seed,
        )


def make_accelerator(config: BaseConfig) -> Accelerator:
    """Device handling lives in accelerate: CPU here, GPUs (bf16, DDP/FSDP) under launch."""
    on_gpu = torch.cuda.is_available()
    if not on_gpu:
        torch.use_deterministic_algorithms(True, warn_only=True)
        if config.cpu_threads:
            torch.set_num_threads(config.cpu_threads)
    mixed = config.mixed_precision if on_gpu else "no"
    return Accelerator(cpu=not on_gpu, mixed_precision=mixed)


def build_run(
    config: BaseConfig,
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    sampler: TaskSampler,
    reward_fn: RewardFn,
) -> Run:
    accelerator = make_accelerator(config)
    ref_model = None
    if isinstance(config, RLConfig) and config.uses_reference:
        ref_model = copy.deepcopy(model).eval().requires_grad_(False)
        ref_model = accelerator.prepare_model(ref_model, evaluation_mode=True)
    value_head = None
    if config.algorithm == "ppo":
        from training.ppo import ValueHead

        value_head = ValueHead(model.config.hidden_size)
    model.train()
    prepared = (
        accelerator.prepare(model) if value_head is None else accelerator.prepare(model, value_head)
    )
    model, value_head = (prepared, None) if value_head is None else prepared
    params = [p for p in model.parameters() if p.requires_grad]
    if value_head is not None:
        params += list(value_head.parameters())
    optimizer = torch.optim.AdamW(
        params, lr=config.learning_rate, betas=config.adam_betas, weight_decay=config.weight_decay
    )
    optimizer = accelerator.prepare_optimizer(optimizer)
    scheduler = get_scheduler(
        "constant_with_warmup" if config.lr_schedule == "constant" else config.lr_schedule,
        optimizer,
        num_warmup_steps=config.warmup_steps,
        num_training_steps=config.max_steps * config.optimizer_steps_per_step,
    )
    unwrapped = accelerator.unwrap_model(model)
    is_fsdp = accelerator.distributed_type.name.startswith("FSDP")
    generator = HFGenerator(model if is_fsdp else unwrapped, tokenizer)
    return Run(
        config,
        accelerator,
        model,
        tokenizer,
        optimizer,
        scheduler,
        sampler,
        reward_fn,
        generator,
        ref_model,
        value_head,
    )


def sample_items(run: Run) -> list[Item]:
    """This process's share of the step's prompts (every process draws the same global list)."""
    acc = run.accelerator
    items = run.sampler.sample(run.config.prompts_per_step)
    return items[acc.process_index :: acc.num_processes]


def rollout(run: Run, items: Sequence[Item], group_size: int) -> Batch:
    """Generate G completions per item, verify them, and turn results into rewards."""
    config = run.config
    with run.timer("generation"), run.accelerator.autocast():
        out = run.generator.generate([it.prompt for it in items], config.sampling, n=group_size)
    rows = [it for it in items for _ in range(group_size)]
    with run.timer("verification"):
        results = run.reward_fn(rows, out.texts)
    device = out.completion_ids.device
    raw = torch.tensor(
        [config.unscorable_reward if r.reward is None else r.reward for r in results],
        dtype=torch.float32,
        device=device,
    )
    rewards = normalize_and_clip(raw, config.reward_normalization, config.reward_clip)
    run.sampler.observe(rows, results)
    metrics = {**reward_metrics(rows, results, raw), **completion_metrics(out)}
    metrics["perf/completion_tokens"] = out.lengths.sum().item()
    metrics["perf/completions"] = len(rows)
    return Batch(rows, out, results, rewards, metrics)


def completion_logits(
    model: torch.nn.Module, rollout: Rollout, temperature: float, hidden: bool = False
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Logits (B, C, V) at each completion position, divided by the sampling temperature
    so they score the distribution that was sampled; optionally the last hidden states (B, C, H)."""
    n = rollout.completion_ids.shape[1]
    out = model(
        input_ids=rollout.input_ids,
        attention_mask=rollout.attention_mask,
        logits_to_keep=n + 1,
        output_hidden_states=hidden,
        use_cache=False,
    )
    logits = out.logits[:, :-1].float() / temperature
    states = out.hidden_states[-1][:, -n - 1 : -1] if hidden else None
    return logits, states


def micro_batches(n_rows: int, config: BaseConfig) -> Iterator[list[torch.Tensor]]:
    """Row indices, shuffled (global torch RNG): one list of micro-batches per optimizer step."""
    order = torch.randperm(n_rows)
    mini, micro = config.mini_batch_size, config.micro_size
    for start in range(0, n_rows, mini):
        rows = order[start : start + mini]
        yield [rows[i : i + micro] for i in range(0, len(rows), micro)]


def update(
    run: Run,
    micro: list[torch.Tensor],
    loss_fn: Callable[[torch.Tensor], tuple[torch.Tensor, dict[str, float]]],
    log: MetricLists,
) -> None:
    """One optimizer step over `micro` (lists of row indices), accumulating gradients.

    `loss_fn(rows)` returns this micro-batch's share of the mini-batch loss (already divided
    by mini-batch-wide denominators), so gradients simply add up.
    """
    acc = run.accelerator
    with run.timer("update"):
        for i, rows in enumerate(micro):
            last = i == len(micro) - 1
            sync = contextlib.nullcontext() if last else acc.no_sync(run.model)
            with sync, acc.autocast():
                loss, metrics = loss_fn(rows)
                acc.backward(loss)
            log.add(**metrics)
        params = [p for group in run.optimizer.param_groups for p in group["params"]]
        max_norm = run.config.max_grad_norm or float("inf")
        grad_norm = acc.clip_grad_norm_(params, max_norm)
        run.optimizer.step()
        run.scheduler.step()
        run.optimizer.zero_grad(set_to_none=True)
    log.add(grad_norm=grad_norm)


def run_eval_on(
    result: TrainResult, config: BaseConfig, items: Sequence[Item], reward_fn: RewardFn
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
    )

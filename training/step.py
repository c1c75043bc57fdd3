"""What every algorithm's step shares: the `Run` it reads and updates, how a run is built, and
the helpers `sample_items`, `rollout`, `completion_logits`, `micro_batches` and `update`.

The driver (`training.engine`) and the algorithm files (`grpo.py`, `ppo.py`, `sft.py`,
`rejection.py`) both import this module; it imports neither, so imports run one way.
"""

from __future__ import annotations

import contextlib
import copy
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import torch
from accelerate import Accelerator
from accelerate.utils import DistributedType, broadcast_object_list, gather_object
from transformers import PreTrainedModel, PreTrainedTokenizerBase, get_scheduler

from training import metric_catalogue as metric
from training.config import BaseConfig, RLConfig
from training.decode import attention_mask, make_generator, unsupported_reason
from training.episodes import EnvironmentSpec, EpisodeRecord, play
from training.generation import Generator, HFGenerator, Rollout
from training.interfaces import Completion, Item, RewardFn, RewardResult, TaskSampler
from training.lora import adapter_off, apply_lora
from training.losses import normalize_and_clip, token_logprobs
from training.metrics import (
    MetricLists,
    Timer,
    completion_metrics,
    episode_metrics,
    reward_metrics,
)
from training.models import ValueHead
from training.packing import PassCost
from training.packing import plan as plan_packing
from training.prompting import RAW_FORMAT, PromptFormat, answers_only, check_format
from training.verification import verify

if TYPE_CHECKING:
    from training.pipeline import Pending


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
    generator: Generator
    ref_model: torch.nn.Module | None = None
    """The frozen reference's own copy; None without a KL term, and with LoRA (see
    `reference`)."""
    value_head: torch.nn.Module | None = None
    step: int = 0
    timer: Timer = field(default_factory=Timer)
    tokens_seen: int = 0
    """Completion tokens generated (or trained on, for SFT) by every process so far."""
    batch: Batch | None = None
    """This step's verified rollout, kept until the driver has reported its completions."""
    pending: Pending | None = None
    """With `async_verification`: the next step's rollout, generated and being verified."""
    prompt_format: PromptFormat = RAW_FORMAT
    """How prompts become model input and where a completion's answer starts."""
    environment: EnvironmentSpec | None = None
    """Set for a run on episodes: each rollout row is a multi-turn episode
    (`training.episodes`), rewarded by the environment's reward function."""

    @property
    def policy(self) -> PreTrainedModel:
        return self.accelerator.unwrap_model(self.model)

    @property
    def uses_reference(self) -> bool:
        return isinstance(self.config, RLConfig) and self.config.uses_reference

    @property
    def critic(self) -> torch.nn.Module:
        """The value head: only PPO builds one."""
        if self.value_head is None:
            raise RuntimeError("this algorithm has no value head (only PPO builds one)")
        return self.value_head


@dataclass
class Batch:
    """One step's verified rollout: rows are grouped by prompt (G rows each)."""

    items: list[Item]  # one per row
    rollout: Rollout
    results: list[RewardResult]
    rewards: torch.Tensor  # (B,) normalised and clipped
    metrics: dict[str, float]
    group_size: int = 1
    advantages: torch.Tensor | None = None  # (B,) set by the algorithm once computed
    behaviour_logps: torch.Tensor | None = None
    """(B, C) log-probs under the weights that sampled the batch, when those are not the
    current ones (async verification trains on the previous step's completions)."""

    def completions(self) -> list[Completion]:
        """Each row with its verdict, group, sample index and advantage, for a rollout sink."""
        n, size = len(self.items), self.group_size
        advantages = self.advantages.tolist() if self.advantages is not None else [None] * n
        lengths = self.rollout.lengths.tolist()
        return [
            Completion(item, text, result, row // size, row % size, advantage, int(tokens))
            for row, (item, text, result, advantage, tokens) in enumerate(
                zip(self.items, self.rollout.texts, self.results, advantages, lengths, strict=True)
            )
        ]


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
    prompt_format: PromptFormat = RAW_FORMAT,
    environment: EnvironmentSpec | None = None,
) -> Run:
    """The run's pieces; rollouts use `prompt_format`, whose reward function judges the
    answers with their reasoning sections left out; with `environment`, rollouts are
    episodes."""
    check_format(tokenizer, prompt_format)
    accelerator = make_accelerator(config)
    lora = config.model.lora
    if lora.enabled:
        # A PeftModel: it hands `config`, `forward` and `generate` on to the model it wraps.
        model = cast(PreTrainedModel, apply_lora(model, lora, config.model.path))
    ref_model = None
    if isinstance(config, RLConfig) and config.uses_reference and not lora.enabled:
        ref_model = copy.deepcopy(model).eval().requires_grad_(False)
        ref_model = accelerator.prepare_model(ref_model, evaluation_mode=True)
    value_head = None
    if config.algorithm == "ppo":
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
    if lora.enabled:  # the decode loop calls the transformers model; its layers hold the adapters
        unwrapped = unwrapped.get_base_model()
    is_fsdp = accelerator.distributed_type.name.startswith("FSDP")
    if is_fsdp and config.sampling.backend == "vllm":
        raise ValueError(
            "sampling.backend: vllm cannot generate under FSDP (each rank holds a shard of "
            "the weights vLLM would copy); launch with DDP, or choose the engine backend"
        )
    # An FSDP module gathers its shards inside `generate`; the decode loop calls the
    # unwrapped module, which only holds this rank's shard there.
    generator = (
        HFGenerator(model, tokenizer, prompt_format)
        if is_fsdp
        else make_generator(config.sampling, unwrapped, tokenizer, prompt_format)
    )
    return Run(
        config,
        accelerator,
        model,
        tokenizer,
        optimizer,
        scheduler,
        sampler,
        answers_only(reward_fn, prompt_format),
        generator,
        ref_model,
        value_head,
        prompt_format=prompt_format,
        environment=environment,
    )


@contextlib.contextmanager
def reference(run: Run) -> Iterator[torch.nn.Module | None]:
    """The frozen reference policy of the KL term (None when the run has none): its own copy,
    or with LoRA the policy itself with its adapter switched off while the block runs."""
    if run.ref_model is not None or not run.uses_reference:
        yield run.ref_model
        return
    with adapter_off(run.policy):
        yield run.model


def sample_items(run: Run) -> list[Item]:
    """This process's share of the step's prompts (every process draws the same global list)."""
    acc = run.accelerator
    items = run.sampler.sample(run.config.prompts_per_step)
    return items[acc.process_index :: acc.num_processes]


def rollout(run: Run, items: Sequence[Item], group_size: int) -> Batch:
    """Generate G completions per item (or, on episodes, play G episodes of it), verify
    them, and turn results into rewards."""
    if run.environment is not None:
        return episode_rollout(run, run.environment, items, group_size)
    rows, out = generate(run, items, group_size)
    with run.timer("verification"):
        results = verify(run.reward_fn, rows, out.texts, run.config.verification_workers)
    return verified_batch(run, rows, out, results, group_size)


def episode_rollout(
    run: Run, spec: EnvironmentSpec, items: Sequence[Item], group_size: int
) -> Batch:
    """G episodes per item, played turn by turn for the whole batch (`training.episodes`),
    each rewarded once on its final state; the episode travels to the rollout sink in its
    result's `details["episode"]`."""
    rows = [it for it in items for _ in range(group_size)]
    device = run.accelerator.device
    with run.timer("generation"), run.accelerator.autocast():
        played = play(
            run.generator, run.tokenizer, run.prompt_format, spec, rows, run.config.sampling, device
        )
    with run.timer("verification"):
        results = [
            with_episode(result, record)
            for result, record in zip(
                spec.reward_fn(rows, played.records), played.records, strict=True
            )
        ]
    return verified_batch(run, rows, played.rollout, results, group_size)


def with_episode(result: RewardResult, record: EpisodeRecord) -> RewardResult:
    """`result` with the episode in its details (the conversation, per-turn verdicts)."""
    details = {**(result.details or {}), "episode": record.to_dict()}
    return RewardResult(result.reward, result.passed, result.parts, result.error_type, details)


def generate(run: Run, items: Sequence[Item], group_size: int) -> tuple[list[Item], Rollout]:
    """G completions per item: the rows (each item G times, grouped) and their rollout."""
    with run.timer("generation"), run.accelerator.autocast():
        out = run.generator.generate([it.prompt for it in items], run.config.sampling, n=group_size)
    return [it for it in items for _ in range(group_size)], out


def verified_batch(
    run: Run, rows: list[Item], out: Rollout, results: list[RewardResult], group_size: int
) -> Batch:
    """The step's batch from verified rows; the sampler observes every process's verdicts."""
    raw = raw_rewards(run.config, results, out.completion_ids.device)
    rewards = normalize_and_clip(raw, run.config.reward_normalization, run.config.reward_clip)
    run.sampler.observe(*global_results(run.accelerator, rows, results))
    metrics = rollout_metrics(rows, results, raw, out)
    run.batch = Batch(rows, out, results, rewards, metrics, group_size)
    return run.batch


def raw_rewards(
    config: RLConfig, results: Sequence[RewardResult], device: torch.device
) -> torch.Tensor:
    """(B,) rewards as the reward function gave them, `unscorable_reward` for None."""
    values = [config.unscorable_reward if r.reward is None else r.reward for r in results]
    return torch.tensor(values, dtype=torch.float32, device=device)


def rollout_metrics(
    rows: Sequence[Item], results: Sequence[RewardResult], raw: torch.Tensor, out: Rollout
) -> dict[str, float]:
    metrics = {**reward_metrics(rows, results, raw), **completion_metrics(out)}
    episodes = [r.details["episode"] for r in results if r.details and "episode" in r.details]
    if len(episodes) == len(results) and episodes:  # a run on episodes (`episode_rollout`)
        errors, tokens = [e["errors"] for e in episodes], [e["tokens"] for e in episodes]
        ended_by = [e["ended_by"] for e in episodes]
        metrics.update(episode_metrics(errors, tokens, ended_by, results))
    metrics[metric.COMPLETION_TOKENS] = out.lengths.sum().item()
    metrics[metric.COMPLETIONS] = len(rows)
    return metrics


def global_results(
    acc: Accelerator, rows: Sequence[Item], results: Sequence[RewardResult]
) -> tuple[list[Item], list[RewardResult]]:
    """Every process's rows and results (process 0's first), on every process.

    The sampler sees the whole step's batch on each rank, so a curriculum's state stays the
    same everywhere; `sample_items` relies on it, since each rank draws the global list from
    its own sampler and keeps its share.
    """
    if acc.num_processes == 1:
        return list(rows), list(results)
    gathered = gather_object([(list(rows), list(results))])  # one (rows, results) per rank
    return [r for part, _ in gathered for r in part], [r for _, part in gathered for r in part]


def main_decides(acc: Accelerator, decide: Callable[[], bool]) -> bool:
    """The main process's answer to `decide()`, on every process.

    Whether to stop, or to write a last checkpoint, must be one answer: a rank that leaves the
    loop (or skips a save) while another enters the next collective hangs them both. Only the
    main process asks (a cancel flag in a database, a store's newest checkpoint).
    """
    if acc.num_processes == 1:
        return decide()
    answer = [decide() if acc.is_main_process else None]
    broadcast_object_list(answer, from_process=0)
    return bool(answer[0])


def completion_logits(
    model: torch.nn.Module, rollout: Rollout, temperature: float, hidden: bool = False
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Logits (B, C, V) at each completion position, divided by the sampling temperature
    so they score the distribution that was sampled; optionally the last hidden states (B, C, H)."""
    n = rollout.completion_ids.shape[1]
    cost = pass_cost(model)
    packing = None if cost is None else plan_packing(rollout.attention_mask, n, cost)
    inner = transformers_model(model) if packing is not None else None  # found by pass_cost
    if packing is not None and inner is not None:  # the same outputs, from the real tokens
        out = model(
            input_ids=packing.inputs(rollout.input_ids),
            attention_mask=attention_mask(packing.allowed[:, None], inner),
            position_ids=packing.positions,
            output_hidden_states=hidden,
            use_cache=False,
        )
        logits = packing.outputs(out.logits).float() / temperature
        states = packing.outputs(out.hidden_states[-1]) if hidden else None
        return logits, states
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


def transformers_model(model: torch.nn.Module) -> PreTrainedModel | None:
    """The transformers model inside `model`'s wrappers (DDP, FSDP, a PEFT adapter), or None
    where a wrapper hides it."""
    while not isinstance(model, PreTrainedModel):
        unwrap = getattr(model, "get_base_model", None)
        inner = unwrap() if callable(unwrap) else getattr(model, "module", None)
        if not isinstance(inner, torch.nn.Module):
            return None
        model = inner
    return model


_PACKABLE: weakref.WeakKeyDictionary[torch.nn.Module, bool] = weakref.WeakKeyDictionary()


def pass_cost(model: torch.nn.Module) -> PassCost | None:
    """How `training.packing` weighs `model`'s passes, or None where they cannot run packed:
    its attention must take an explicit mask and every layer attend to the whole sequence,
    as the decode loop needs too (`decode.unsupported_reason`), and a wrapper it does not
    know must not hide the transformers model."""
    inner = transformers_model(model)
    if inner is None:
        return None
    if inner not in _PACKABLE:
        _PACKABLE[inner] = unsupported_reason(inner) is None
    if not _PACKABLE[inner]:
        return None
    config = inner.config.get_text_config()
    layers = config.num_hidden_layers
    kept = 1 if inner.is_activation_checkpointing else layers
    return PassCost.of(config.hidden_size, config.vocab_size, layers, kept)


@torch.no_grad()
def rollout_logprobs(run: Run, model: torch.nn.Module, out: Rollout) -> torch.Tensor:
    """(B, C) log-probs of `out`'s completion tokens under `model`, in micro-batches."""
    chunks = []
    with run.accelerator.autocast():
        for rows in torch.arange(len(out.texts)).split(run.config.micro_size):
            logits, _ = completion_logits(model, out.select(rows), run.config.sampling.temperature)
            chunks.append(token_logprobs(logits, out.completion_ids[rows]))
    return torch.cat(chunks)


def micro_batches(n_rows: int, config: BaseConfig) -> Iterator[list[torch.Tensor]]:
    """Row indices, shuffled (global torch RNG): one list of micro-batches per optimizer step."""
    order = torch.randperm(n_rows)
    mini, micro = config.mini_batch_size, config.micro_size
    for start in range(0, n_rows, mini):
        rows = order[start : start + mini]
        yield [rows[i : i + micro] for i in range(0, len(rows), micro)]


def accumulation_scale(acc: Accelerator) -> float:
    """What accelerate's `backward` divides a loss by: the accumulation steps, or under
    DeepSpeed its engine's own (fixed when it was prepared)."""
    if acc.distributed_type == DistributedType.DEEPSPEED:
        return float(acc.deepspeed_engine_wrapped.engine.gradient_accumulation_steps())
    return float(acc.gradient_accumulation_steps)


def update(
    run: Run,
    micro: list[torch.Tensor],
    loss_fn: Callable[[torch.Tensor], tuple[torch.Tensor, dict[str, float]]],
    log: MetricLists,
) -> None:
    """One optimizer step over `micro` (lists of row indices), accumulating gradients.

    `loss_fn(rows)` returns this micro-batch's share of the mini-batch loss (already divided
    by mini-batch-wide denominators), so gradients simply add up.

    The micro-batches accumulate through accelerate's `accumulate()`, set to this step's
    count: gradients sync across processes on the last one only (DDP and FSDP skip the
    all-reduce before it) and DeepSpeed's engine is told where the accumulation boundary is,
    so it steps once per optimizer step rather than once per micro-batch (its engine ignores
    `no_sync`). accelerate divides each loss by the count (DeepSpeed's engine by its own);
    `accumulation_scale` undoes that, the shares being already divided.
    """
    acc = run.accelerator
    with run.timer("update"):
        acc.gradient_accumulation_steps = len(micro)
        acc.step = 0  # accumulate() counts micro-batches from here: the last one syncs
        scale = accumulation_scale(acc)
        for rows in micro:
            with acc.accumulate(run.model), acc.autocast():
                loss, metrics = loss_fn(rows)
                acc.backward(loss * scale if scale != 1 else loss)
            log.add(**metrics)
        params = [p for group in run.optimizer.param_groups for p in group["params"]]
        max_norm = run.config.max_grad_norm or float("inf")
        grad_norm = acc.clip_grad_norm_(params, max_norm)
        run.optimizer.step()
        run.scheduler.step()
        run.optimizer.zero_grad(set_to_none=True)
        run.generator.sync_weights()  # a backend holding its own copy (vLLM) reloads it
    log.add(**{metric.GRAD_NORM: grad_norm})

"""Rollout generation behind a small interface.

`HFGenerator` runs Hugging Face `generate` with the KV cache on left-padded prompts: the
reference backend. The engine's own decode loop (`training.decode`, the default) and a vLLM
backend implement the same `Generator` protocol; a vLLM one would take weight updates
through `sync_weights`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import torch
from transformers import GenerationMixin, PreTrainedModel, PreTrainedTokenizerBase

from training.config import SamplingConfig
from training.prompting import (
    RAW_FORMAT,
    PromptFormat,
    encode_batch,
    split_reasoning,
    stop_token_ids,
)


@dataclass
class Rollout:
    prompt_ids: torch.Tensor  # (B, P) left-padded
    prompt_mask: torch.Tensor  # (B, P) 1 on real prompt tokens
    completion_ids: torch.Tensor  # (B, C) right-padded
    completion_mask: torch.Tensor  # (B, C) 1 up to and including the first stop token
    texts: list[str]  # decoded completions, special tokens removed
    truncated: torch.Tensor  # (B,) bool: no stop token within max_new_tokens
    logprobs: torch.Tensor | None = None
    """(B, C) log-probability of each completion token under the sampling backend's forward
    pass (at the sampling temperature, before top-k / top-p), 0 where masked; None when the
    backend does not report them."""
    reasoning_lengths: torch.Tensor | None = None
    """(B,) tokens of each completion's reasoning section, in chat format; None in raw."""
    completion_attention: torch.Tensor | None = None
    """(B, C) 1 on every real completion token, where that differs from `completion_mask`:
    an episode's completion holds the environment's tokens too, which the model attends to
    but is not trained on (`completion_mask` is 0 there). None: the same as the mask."""

    @property
    def input_ids(self) -> torch.Tensor:
        return torch.cat([self.prompt_ids, self.completion_ids], dim=1)

    @property
    def attention_mask(self) -> torch.Tensor:
        attended = self.completion_attention
        if attended is None:
            attended = self.completion_mask
        return torch.cat([self.prompt_mask, attended], dim=1)

    @property
    def lengths(self) -> torch.Tensor:
        return self.completion_mask.sum(dim=1)

    def select(self, index: torch.Tensor) -> Rollout:
        texts = [self.texts[i] for i in index.tolist()]
        return Rollout(
            self.prompt_ids[index],
            self.prompt_mask[index],
            self.completion_ids[index],
            self.completion_mask[index],
            texts,
            self.truncated[index],
            None if self.logprobs is None else self.logprobs[index],
            None if self.reasoning_lengths is None else self.reasoning_lengths[index],
            None if self.completion_attention is None else self.completion_attention[index],
        )


class Generator(Protocol):
    def generate(self, prompts: list[str], sampling: SamplingConfig, n: int = 1) -> Rollout:
        """`n` completions per prompt, grouped: rows i*n .. i*n+n-1 belong to prompt i."""

    def generate_tokens(
        self,
        prompt_ids: torch.Tensor,
        prompt_mask: torch.Tensor,
        sampling: SamplingConfig,
        n: int = 1,
    ) -> Rollout:
        """`generate` from prompts already tokenized: (P, L) left-padded ids and their mask.
        An episode's next turn continues the exact tokens sampled so far this way."""

    def sync_weights(self) -> None:
        """Make the next `generate` use the policy's current weights."""


class PromptEncoder:
    """`generate` from prompt texts, for a generator that implements `generate_tokens`:
    the prompts are encoded as its `prompt_format` says, left-padded."""

    tokenizer: PreTrainedTokenizerBase
    prompt_format: PromptFormat

    def generate(self, prompts: list[str], sampling: SamplingConfig, n: int = 1) -> Rollout:
        enc = encode_batch(self.tokenizer, prompts, self.prompt_format)
        return self.generate_tokens(enc["input_ids"], enc["attention_mask"], sampling, n)

    def generate_tokens(
        self,
        prompt_ids: torch.Tensor,
        prompt_mask: torch.Tensor,
        sampling: SamplingConfig,
        n: int = 1,
    ) -> Rollout:
        raise NotImplementedError


class HFGenerator(PromptEncoder):
    """Batched `model.generate` (sampling, KV cache, left padding)."""

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        prompt_format: PromptFormat = RAW_FORMAT,
    ) -> None:
        self.model = model  # the unwrapped module (or the FSDP-wrapped one, which gathers itself)
        self.tokenizer = tokenizer
        self.prompt_format = prompt_format

    def sync_weights(self) -> None:
        pass  # generation runs on the trained module itself

    @torch.no_grad()
    def generate_tokens(
        self,
        prompt_ids: torch.Tensor,
        prompt_mask: torch.Tensor,
        sampling: SamplingConfig,
        n: int = 1,
    ) -> Rollout:
        device = next(self.model.parameters()).device
        stops = generator_stops(self.model, self.tokenizer, self.prompt_format)
        prompt_ids = prompt_ids.repeat_interleave(n, dim=0).to(device)
        prompt_mask = prompt_mask.repeat_interleave(n, dim=0).to(device)
        was_training = self.model.training
        self.model.eval()
        # Causal LMs mix in GenerationMixin; PreTrainedModel alone does not declare generate.
        out = cast(GenerationMixin, self.model).generate(
            input_ids=prompt_ids,
            attention_mask=prompt_mask,
            **generate_kwargs(sampling),
            pad_token_id=self.tokenizer.pad_token_id,
            eos_token_id=stops,
            use_cache=True,
            return_dict_in_generate=True,
            output_logits=True,  # raw logits, one (B, V) per step: the sampled tokens' log-probs
        )
        self.model.train(was_training)
        completion_ids = out.sequences[:, prompt_ids.shape[1] :]
        logprobs = sampled_logprobs(out.logits, completion_ids, sampling.temperature)
        return finish_rollout(
            prompt_ids,
            prompt_mask,
            completion_ids,
            self.tokenizer,
            logprobs,
            stops=stops,
            prompt_format=self.prompt_format,
        )


def generator_stops(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, fmt: PromptFormat
) -> list[int]:
    """The stop tokens of `model` in format `fmt` (see `training.prompting.stop_token_ids`)."""
    return stop_token_ids(tokenizer, fmt, getattr(model, "generation_config", None))


def sampled_logprobs(
    step_logits: tuple[torch.Tensor, ...], ids: torch.Tensor, temperature: float
) -> torch.Tensor:
    """(B, C) log-probs of `ids` under softmax(logits / temperature), from one (B, V) raw
    logits tensor per step (temperature 0, greedy, scores at temperature 1)."""
    scale = temperature or 1.0
    return torch.stack(
        [
            (logits.float() / scale).log_softmax(dim=-1).gather(1, ids[:, t, None]).squeeze(1)
            for t, logits in enumerate(step_logits)
        ],
        dim=1,
    )


def generate_kwargs(sampling: SamplingConfig) -> dict:
    """`generate` arguments for the sampling config; temperature 0 means greedy."""
    if sampling.temperature == 0:
        return {"do_sample": False, "max_new_tokens": sampling.max_new_tokens}
    return {
        "do_sample": True,
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
        "top_k": sampling.top_k,  # 0 disables top-k, as in TRL
        "max_new_tokens": sampling.max_new_tokens,
    }


def finish_rollout(
    prompt_ids: torch.Tensor,
    prompt_mask: torch.Tensor,
    completion_ids: torch.Tensor,
    tokenizer: PreTrainedTokenizerBase,
    logprobs: torch.Tensor | None = None,
    *,
    stops: Sequence[int] | None = None,
    prompt_format: PromptFormat = RAW_FORMAT,
) -> Rollout:
    """Mask everything after the first stop token (`stops`, by default the tokenizer's EOS)
    in the ids and `logprobs`, both (B, C), decode, and count reasoning tokens in chat."""
    stop_ids = [tokenizer.eos_token_id] if stops is None else list(stops)
    is_eos = torch.isin(completion_ids, torch.tensor(stop_ids, device=completion_ids.device))
    has_eos = is_eos.any(dim=1)
    first_eos = torch.where(has_eos, is_eos.int().argmax(dim=1), completion_ids.shape[1])
    positions = torch.arange(completion_ids.shape[1], device=completion_ids.device)
    completion_mask = (positions[None, :] <= first_eos[:, None]).long()
    completion_ids = completion_ids.masked_fill(completion_mask == 0, tokenizer.pad_token_id)
    texts = tokenizer.batch_decode(completion_ids, skip_special_tokens=True)
    if logprobs is not None:
        logprobs = logprobs * completion_mask
    reasoning = (
        reasoning_lengths(tokenizer, texts, prompt_format) if prompt_format.is_chat else None
    )
    return Rollout(
        prompt_ids,
        prompt_mask,
        completion_ids,
        completion_mask,
        texts,
        ~has_eos,
        logprobs,
        reasoning,
    )


def reasoning_lengths(
    tokenizer: PreTrainedTokenizerBase, texts: Sequence[str], fmt: PromptFormat
) -> torch.Tensor:
    """(B,) tokens of each completion's reasoning section (0 where it has none), counted by
    tokenizing the section's text again."""
    sections = [split_reasoning(text, fmt)[0] for text in texts]
    ids = tokenizer(sections, add_special_tokens=False)["input_ids"] if sections else []
    return torch.tensor([len(row) for row in ids], dtype=torch.long)

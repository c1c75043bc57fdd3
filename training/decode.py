"""The engine's own decode loop: the default rollout backend (`sampling.backend: engine`).

What it does that `model.generate` does not, for the batches RL samples (G completions of
each prompt, most of them short):
- each prompt is prefilled once and its KV cache copied G times, instead of G prefills of the
  same tokens (on the demo the prefill of 512 rows is most of `generate`'s time);
- the KV cache is transformers' `StaticCache`, allocated once at prompt + max_new_tokens;
- the whole batch is sampled in one draw per step (inverse CDF), with HF's temperature / top-k /
  top-p semantics (`filter_logits` is tested against HF's warpers);
- rows that have emitted EOS are dropped from the batch (once a quarter of it has finished),
  so late steps run only the rows still writing, and the loop stops when every row is done;
- it returns each sampled token's log-probability, which the update compares with its own
  forward pass (`logprob_gap/*`) and can correct with truncated importance sampling.

`HFGenerator` stays as the reference backend behind the same `Generator` protocol.
Models whose cache is not one full-attention layer per decoder layer (sliding windows, hybrid
or linear attention) or whose attention kernel takes no explicit mask (flash attention) use
`HFGenerator`: `make_generator` says so in the log.
"""

from __future__ import annotations

import logging

import torch
from transformers import Cache, PreTrainedModel, PreTrainedTokenizerBase, StaticCache
from transformers.cache_utils import StaticLayer

from training.config import SamplingConfig
from training.generation import (
    Generator,
    HFGenerator,
    PromptEncoder,
    Rollout,
    finish_rollout,
    generator_stops,
)
from training.prompting import RAW_FORMAT, PromptFormat
from training.vllm_backend import make_vllm_generator

logger = logging.getLogger(__name__)

COMPACT_FINISHED_FRACTION = 0.25
"""Drop finished rows once they are this share of the running batch. Dropping copies every
layer's cache, so doing it for each single finished row costs more than it saves; this way
finished rows never take more than a quarter of a step's compute."""
MASKED_ATTENTION_IMPLEMENTATIONS = ("sdpa", "eager")
"""Kernels that take the explicit (rows, 1, queries, keys) mask this loop builds."""


class DecodeGenerator(PromptEncoder):
    """Prefill once per prompt, decode G copies with a static cache, drop finished rows."""

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        compile: bool = False,
        prompt_format: PromptFormat = RAW_FORMAT,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.prompt_format = prompt_format
        self.step_forward = model.forward
        if compile and next(model.parameters()).device.type == "cuda":
            # One-token steps are launch-bound on a GPU; the batch shrinks as rows finish, so
            # shapes are dynamic. Never on CPU: the tiny models there gain nothing from it.
            self.step_forward = torch.compile(model.forward, dynamic=True)

    def sync_weights(self) -> None:
        pass  # the loop runs on the trained module itself

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
        prompt_ids = prompt_ids.to(device)  # (P, L) left-padded
        prompt_mask = prompt_mask.to(device)
        was_training = self.model.training
        self.model.eval()
        try:
            completion_ids, logprobs = self._decode(prompt_ids, prompt_mask, sampling, n, stops)
        finally:
            self.model.train(was_training)
        return finish_rollout(
            prompt_ids.repeat_interleave(n, dim=0),
            prompt_mask.repeat_interleave(n, dim=0),
            completion_ids,
            self.tokenizer,
            logprobs,
            stops=stops,
            prompt_format=self.prompt_format,
        )

    def _decode(
        self,
        prompt_ids: torch.Tensor,
        prompt_mask: torch.Tensor,
        sampling: SamplingConfig,
        n: int,
        stops: list[int],
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, C) sampled ids (anything after a row's first stop token is left for
        `finish_rollout` to mask) and their log-probs, C <= max_new_tokens steps."""
        n_prompts, prompt_len = prompt_ids.shape
        max_new = sampling.max_new_tokens
        cache = StaticCache(config=self.model.config, max_cache_len=prompt_len + max_new)
        # Which cache slots each row may attend to: its real prompt tokens, then each token
        # it generates (slot prompt_len + t), opened as the loop reaches it.
        visible = torch.zeros(
            n_prompts, prompt_len + max_new, dtype=torch.bool, device=prompt_ids.device
        )
        visible[:, :prompt_len] = prompt_mask.bool()
        logits = self._prefill(prompt_ids, prompt_mask, visible, cache)  # (P, V)

        # The G copies of a prompt share its prefill: copy the cache, not the computation.
        expand_cache(cache, torch.arange(n_prompts, device=prompt_ids.device).repeat_interleave(n))
        logits, visible = logits.repeat_interleave(n, dim=0), visible.repeat_interleave(n, dim=0)
        next_position = prompt_mask.sum(dim=1).repeat_interleave(n)  # (B,) as HF counts them
        rows = torch.arange(len(logits), device=logits.device)  # output row of each batch row
        finished = torch.zeros_like(rows, dtype=torch.bool)
        completion = torch.full(
            (len(rows), max_new), self.tokenizer.pad_token_id, dtype=torch.long, device=rows.device
        )
        logprobs = torch.zeros(len(rows), max_new, device=rows.device)
        stop = torch.tensor(stops, device=rows.device)
        for t in range(max_new):
            tokens, token_logps = sample(logits, sampling)  # (b,), (b,)
            completion[rows, t], logprobs[rows, t] = tokens, token_logps
            finished |= torch.isin(tokens, stop)
            if t == max_new - 1 or bool(finished.all()):
                return completion[:, : t + 1], logprobs[:, : t + 1]
            if finished.sum() >= COMPACT_FINISHED_FRACTION * len(rows):
                keep = (~finished).nonzero().squeeze(1)
                expand_cache(cache, keep)
                rows, tokens, visible = rows[keep], tokens[keep], visible[keep]
                next_position, finished = next_position[keep], finished[keep]
            visible[:, prompt_len + t] = True
            logits = self._step(tokens, next_position + t, visible, cache)
        raise AssertionError("unreachable: the loop returns at its last step")

    def _prefill(
        self,
        prompt_ids: torch.Tensor,
        prompt_mask: torch.Tensor,
        visible: torch.Tensor,
        cache: StaticCache,
    ) -> torch.Tensor:
        """Run the prompts into `cache`; the next-token logits (P, V) in float32."""
        prompt_len = prompt_ids.shape[1]
        slots = torch.arange(visible.shape[1], device=visible.device)[None, :]  # (1, S)
        queries = torch.arange(prompt_len, device=visible.device)[:, None]  # (L, 1)
        # A padding query sees no real key; letting it see itself keeps its (unused) output
        # finite: a NaN there would reach real rows through 0 x NaN in the attention sum.
        allowed = (visible[:, None, :] & (slots <= queries)) | (slots == queries)  # (P, L, S)
        positions = (prompt_mask.cumsum(dim=1) - 1).clamp(min=0)  # as HF numbers left padding
        return self._forward(self.model.forward, prompt_ids, positions, allowed, cache)

    def _step(
        self,
        tokens: torch.Tensor,
        positions: torch.Tensor,
        visible: torch.Tensor,
        cache: StaticCache,
    ) -> torch.Tensor:
        """One token per row: (b,) ids at (b,) positions -> next-token logits (b, V)."""
        return self._forward(
            self.step_forward, tokens[:, None], positions[:, None], visible[:, None, :], cache
        )

    def _forward(self, forward, ids, positions, allowed, cache) -> torch.Tensor:
        return forward_logits(self.model, forward, ids, positions, allowed, cache)


def forward_logits(model, forward, ids, positions, allowed, cache) -> torch.Tensor:
    """`forward` (the model's, or a compiled one) on `ids` at `positions` into `cache`; the
    last position's logits (b, V) in float32. `allowed` (b, q, S) bool becomes the 4-D mask
    the attention kernel takes as is."""
    out = forward(
        input_ids=ids,
        attention_mask=attention_mask(allowed[:, None], model),
        position_ids=positions,
        cache=cache,
        use_cache=True,
        logits_to_keep=1,
    )
    return out.logits[:, -1].float()


def attention_mask(allowed: torch.Tensor, model: PreTrainedModel) -> torch.Tensor:
    """SDPA takes a boolean mask (True = attend); eager attention adds a float one."""
    if model.config._attn_implementation == "sdpa":
        return allowed
    blocked = torch.finfo(model.dtype).min
    return torch.zeros(allowed.shape, dtype=model.dtype, device=allowed.device).masked_fill(
        ~allowed, blocked
    )


def expand_cache(cache: Cache, index: torch.Tensor) -> None:
    """Keep (and repeat) the batch rows `index` of every layer's keys and values."""
    for layer in cache.layers:
        # only full-attention static layers get here (`unsupported_reason`), filled by prefill
        assert isinstance(layer, StaticLayer) and layer.keys is not None
        assert layer.values is not None
        # index_select copies whole rows; advanced indexing gathers element by element
        layer.keys = layer.keys.index_select(0, index)
        layer.values = layer.values.index_select(0, index)
        layer.batch_size = len(index)


def sample(
    logits: torch.Tensor, sampling: SamplingConfig, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """One token per row from (b, V) float logits, and its log-probability (b,), drawn from
    ``generator`` (None: torch's global one).

    The log-probability is the token's under softmax(logits / temperature), before top-k /
    top-p: the distribution the training forward pass scores (`completion_logits`), as
    vLLM's default `logprobs` are. Temperature 0 is greedy and scores at temperature 1.
    """
    if sampling.temperature == 0:
        tokens = logits.argmax(dim=-1)
        return tokens, logits.log_softmax(dim=-1).gather(1, tokens[:, None]).squeeze(1)
    scaled = logits / sampling.temperature
    probs = filter_logits(scaled, sampling.top_k, sampling.top_p).softmax(dim=-1)
    tokens = inverse_cdf_sample(probs, generator)
    return tokens, scaled.log_softmax(dim=-1).gather(1, tokens[:, None]).squeeze(1)


def inverse_cdf_sample(
    probs: torch.Tensor, generator: torch.Generator | None = None
) -> torch.Tensor:
    """One index per row of (b, V) probabilities: the first whose cumulative probability
    exceeds a uniform draw. The same categorical as `torch.multinomial`, from b random numbers
    instead of the b x V exponentials multinomial draws on a CPU."""
    cdf = probs.cumsum(dim=-1)  # (b, V)
    total = cdf[:, -1:]
    draw = torch.rand(len(probs), 1, generator=generator, device=probs.device, dtype=cdf.dtype)
    draw = draw * total
    draw = torch.minimum(draw, total.nextafter(torch.zeros_like(total)))  # rounding up to total
    # right=True: the first cdf above the draw; a zero-probability token repeats its left
    # neighbour's cdf, so it is never that one
    return torch.searchsorted(cdf, draw, right=True).squeeze(1)


def filter_logits(scores: torch.Tensor, top_k: int, top_p: float) -> torch.Tensor:
    """Top-k then top-p (nucleus) filtering of (b, V) scores, -inf where removed, exactly as
    transformers' TopKLogitsWarper and TopPLogitsWarper do (top_k 0 and top_p 1 are off)."""
    if top_k > 0:
        kth = torch.topk(scores, min(top_k, scores.shape[-1])).values[:, -1:]
        scores = scores.masked_fill(scores < kth, -float("inf"))
    if top_p < 1.0:
        sorted_scores, order = torch.sort(scores, descending=False)
        cumulative = sorted_scores.softmax(dim=-1).cumsum(dim=-1)
        remove = cumulative <= 1 - top_p
        remove[:, -1] = False  # the most likely token always stays
        scores = scores.masked_fill(remove.scatter(1, order, remove), -float("inf"))
    return scores


def unsupported_reason(model: PreTrainedModel) -> str | None:
    """Why the decode loop cannot run `model` (it then runs on `HFGenerator`), or None."""
    config = model.config
    if config.is_encoder_decoder:
        return "it is an encoder-decoder model"
    implementation = config._attn_implementation
    if implementation not in MASKED_ATTENTION_IMPLEMENTATIONS:
        return f"its attention implementation {implementation!r} takes no explicit mask"
    layers = StaticCache(config=config, max_cache_len=1).layers
    if any(type(layer) is not StaticLayer for layer in layers):
        return "its cache has sliding-window, hybrid or linear-attention layers"
    return None


def make_generator(
    sampling: SamplingConfig,
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    prompt_format: PromptFormat = RAW_FORMAT,
) -> Generator:
    """The generator `sampling.backend` names, falling back to HF for unsupported models;
    either encodes prompts and stops completions as `prompt_format` says. `vllm` raises a
    RuntimeError naming `sampling.backend` where vLLM or a GPU is missing."""
    if sampling.backend == "vllm":
        return make_vllm_generator(sampling, model, tokenizer, prompt_format)
    if sampling.backend == "engine":
        reason = unsupported_reason(model)
        if reason is None:
            return DecodeGenerator(model, tokenizer, sampling.compile, prompt_format)
        logger.warning(
            "generation.backend_fallback",
            extra={"backend": "hf", "reason": reason, "model": type(model).__name__},
        )
    return HFGenerator(model, tokenizer, prompt_format)

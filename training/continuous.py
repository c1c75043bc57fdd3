"""Continuous batching: sequences join and leave one running batch at token boundaries.

``RunningBatch`` holds the KV cache of every sequence being decoded, one row each, in one
transformers ``StaticCache`` whose slots all rows share. Each row sees only its own slots
(the explicit attention mask the engine's decode loop builds, `training.decode`):

- ``admit`` prefills newcomers on their own (left-padded together), copies each prompt's
  cache ``n`` times, and lays it into the running cache right-aligned to the slot the next
  token is written at; a prompt longer than the running rows shifts them right instead;
- ``step`` feeds every row's last token at that shared slot, each at its own position id;
- ``keep`` drops finished rows, and slots no row sees any more are trimmed, so the cache
  never holds more than its longest live sequence (plus ``GROW_SLOTS`` of room).

A row's keys and values are the ones its own prefill and steps computed, only moved, and
its mask hides every other row's slots, so a greedy row decodes as it would alone (tested
against the decode loop). Pure torch + transformers: the caller samples and decides when a
row is done.
"""

from __future__ import annotations

import torch
from transformers import PreTrainedModel, StaticCache
from transformers.cache_utils import StaticLayer

from training.decode import forward_logits

GROW_SLOTS = 64
"""Room for this many more tokens is added whenever the cache is full or rebuilt."""


class RunningBatch:
    """The KV cache and positions of the rows being decoded; the caller keeps each row's
    tokens in the same order as ``rows`` here."""

    def __init__(self, model: PreTrainedModel) -> None:
        self.model = model
        self.device = next(model.parameters()).device
        self.keys: list[torch.Tensor] = []  # per layer (b, H, cap, D)
        self.values: list[torch.Tensor] = []
        self.visible = torch.zeros(0, 0, dtype=torch.bool, device=self.device)  # (b, T)
        self.positions = torch.zeros(0, dtype=torch.long, device=self.device)  # (b,)
        self.cache: StaticCache | None = None

    @property
    def rows(self) -> int:
        return len(self.positions)

    @property
    def length(self) -> int:
        """Slots filled: the next token of every row is written at this one."""
        return self.visible.shape[1]

    @torch.no_grad()
    def admit(self, prompt_ids: torch.Tensor, prompt_mask: torch.Tensor, n: int) -> torch.Tensor:
        """Prefill (P, L) left-padded prompts and add ``n`` rows for each, after the current
        rows; their next-token logits (P * n, V) in float32."""
        prompt_ids, prompt_mask = prompt_ids.to(self.device), prompt_mask.to(self.device)
        n_prompts, prompt_len = prompt_ids.shape
        fresh = StaticCache(config=self.model.config, max_cache_len=prompt_len)
        slots = torch.arange(prompt_len, device=self.device)
        visible = prompt_mask.bool()
        # A padding query sees only itself, so its unused output stays finite (see decode).
        allowed = (visible[:, None, :] & (slots[None, :] <= slots[:, None])) | (
            slots[None, :] == slots[:, None]
        )  # (P, L, L)
        positions = (prompt_mask.cumsum(dim=1) - 1).clamp(min=0)
        logits = forward_logits(self.model, self.model.forward, prompt_ids, positions, allowed,
                                fresh)  # fmt: skip
        copies = torch.arange(n_prompts, device=self.device).repeat_interleave(n)
        new_keys = [_filled(layer, copies, "keys") for layer in fresh.layers]
        new_values = [_filled(layer, copies, "values") for layer in fresh.layers]
        self._merge(new_keys, new_values, visible[copies], prompt_mask.sum(dim=1)[copies])
        return logits[copies]

    @torch.no_grad()
    def step(self, tokens: torch.Tensor) -> torch.Tensor:
        """Feed one token per row (b,); the next-token logits (b, V) in float32."""
        if self.length == self.keys[0].shape[2]:
            self._rebuild(self.keys, self.values, self.visible, self.length)
        assert self.cache is not None
        self.visible = torch.cat(
            [self.visible, torch.ones(self.rows, 1, dtype=torch.bool, device=self.device)], 1
        )
        capacity = self.keys[0].shape[2]
        mask = torch.zeros(self.rows, capacity, dtype=torch.bool, device=self.device)
        mask[:, : self.length] = self.visible
        ids, positions = tokens.to(self.device)[:, None], self.positions[:, None]
        forward = self.model.forward
        logits = forward_logits(self.model, forward, ids, positions, mask[:, None, :], self.cache)
        self.positions = self.positions + 1
        return logits

    def keep(self, index: torch.Tensor) -> None:
        """Keep only rows ``index`` (in that order), trimming slots no kept row sees."""
        index = index.to(self.device)
        if len(index) == 0:
            self.visible = self.visible[:0, :0]
            self.positions, self.keys, self.values, self.cache = self.positions[:0], [], [], None
            return
        keys = [k.index_select(0, index) for k in self.keys]
        values = [v.index_select(0, index) for v in self.values]
        self.positions = self.positions.index_select(0, index)
        self._rebuild(keys, values, self.visible.index_select(0, index), self.length)

    # --- the cache's layout ------------------------------------------------------------------

    def _merge(
        self,
        keys: list[torch.Tensor],
        values: list[torch.Tensor],
        visible: torch.Tensor,
        positions: torch.Tensor,
    ) -> None:
        """Append rows whose filled slots are ``keys`` (per layer (b, H, L, D)) and
        ``visible`` (b, L), right-aligned with the running rows."""
        if self.rows == 0:
            self.positions = positions
            self._rebuild(keys, values, visible, visible.shape[1])
            return
        old, new = self.length, visible.shape[1]
        end = max(old, new)
        merged_keys, merged_values = [], []
        for running_k, running_v, k, v in zip(self.keys, self.values, keys, values, strict=True):
            merged_keys.append(_stack_right(running_k[:, :, :old], k, end))
            merged_values.append(_stack_right(running_v[:, :, :old], v, end))
        seen = torch.zeros(self.rows + len(visible), end, dtype=torch.bool, device=self.device)
        seen[: self.rows, end - old :] = self.visible
        seen[self.rows :, end - new :] = visible
        self.positions = torch.cat([self.positions, positions])
        self._rebuild(merged_keys, merged_values, seen, end)

    def _rebuild(
        self,
        keys: list[torch.Tensor],
        values: list[torch.Tensor],
        visible: torch.Tensor,
        length: int,
    ) -> None:
        """Install ``length`` filled slots (less the leading ones no row sees) with room for
        ``GROW_SLOTS`` more."""
        seen = visible.any(dim=0)
        start = int(seen.int().argmax()) if bool(seen.any()) else length
        filled = length - start
        capacity = filled + GROW_SLOTS
        self.keys = [_room(k[:, :, start:length], capacity) for k in keys]
        self.values = [_room(v[:, :, start:length], capacity) for v in values]
        self.visible = visible[:, start:length].contiguous()
        cache = StaticCache(config=self.model.config, max_cache_len=capacity)
        for layer, k, v in zip(cache.layers, self.keys, self.values, strict=True):
            assert isinstance(layer, StaticLayer)
            # what the layer's lazy initialisation sets, on tensors of ours it writes into
            layer.device, layer.batch_size, layer.num_heads = k.device, k.shape[0], k.shape[1]
            layer.k_head_dim, layer.v_head_dim = k.shape[3], v.shape[3]
            layer.keys, layer.values, layer.is_initialized = k, v, True
            layer.cumulative_length = torch.tensor(filled, dtype=torch.long, device=self.device)
        self.cache = cache


def _filled(layer: object, rows: torch.Tensor, part: str) -> torch.Tensor:
    """Rows ``rows`` of a prefilled static layer's ``keys`` or ``values``."""
    assert isinstance(layer, StaticLayer)  # only full-attention layers (decode.unsupported_reason)
    tensor = getattr(layer, part)
    assert tensor is not None  # the prefill filled every layer
    return tensor.index_select(0, rows)


def _stack_right(running: torch.Tensor, new: torch.Tensor, end: int) -> torch.Tensor:
    """(b1, H, L1, D) and (b2, H, L2, D) as one (b1 + b2, H, end, D), each right-aligned."""
    out = running.new_zeros(len(running) + len(new), running.shape[1], end, running.shape[3])
    out[: len(running), :, end - running.shape[2] :] = running
    out[len(running) :, :, end - new.shape[2] :] = new
    return out


def _room(filled: torch.Tensor, capacity: int) -> torch.Tensor:
    """(b, H, L, D) copied into a zeroed (b, H, capacity, D)."""
    out = filled.new_zeros(*filled.shape[:2], capacity, filled.shape[3])
    out[:, :, : filled.shape[2]] = filled
    return out

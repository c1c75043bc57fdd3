"""Decoding a batch of episodes turn by turn on one KV cache kept across the turns.

Each turn of `episodes.play` adds a few tokens to every episode still going (the
environment's answer, the template's turn markers) and samples a few more. Prefilling every
episode's whole context again each turn made that prefill most of the generation time (two
thirds of it on the guessing game). Here the cache of a turn stays for the next: a turn feeds
only the tokens of each episode's context that the cache does not hold yet, then samples.

One `StaticCache` holds every episode still going, a row each, and a slot per column. A row's
tokens sit in increasing slots with holes (slots it may not attend, `visible` False) where
other rows had more to add: each turn's new tokens are right-aligned in a block of slots, so
every row's last token is the block's last column (the logits sampled from), and the sampled
tokens follow one slot per step, as in `DecodeGenerator._decode`. Each row remembers which
tokens its visible slots hold; at the next turn the longest common prefix of those with its
context stays, the rest is hidden (tokens sampled past a stop token, a turn cut short), and
the context's remaining tokens are fed. Positions count a row's real tokens, as the prefill
of its whole context numbers them. Rows whose episodes ended leave the cache; a cache that
would overflow is rebuilt from the contexts.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from transformers import Cache, StaticCache
from transformers.cache_utils import StaticLayer

from training.config import SamplingConfig
from training.decode import DecodeGenerator, expand_cache, forward_logits, sample
from training.generation import Rollout, finish_rollout, generator_stops


class FilledLayer(StaticLayer):
    """A static layer whose update answers only the slots written so far (`filled`, set before
    each forward), so attention spans the turns played, not the whole allocation."""

    filled = 0

    def update(self, key_states, value_states, *args, **kwargs):
        keys, values = super().update(key_states, value_states, *args, **kwargs)
        return keys[:, :, : self.filled], values[:, :, : self.filled]


def filled_cache(config, slots: int) -> Cache:
    layers = len(StaticCache(config=config, max_cache_len=1).layers)  # allocates nothing yet
    return Cache(layers=[FilledLayer(max_cache_len=slots) for _ in range(layers)])


def _fill(cache: Cache, filled: int) -> None:
    for layer in cache.layers:
        assert isinstance(layer, FilledLayer)
        layer.filled = filled


class TurnDecoder:
    """The next message of each episode still going, on a cache kept across turns."""

    def __init__(self, generator: DecodeGenerator, rows: int, slots: int) -> None:
        self.generator = generator
        self.model = generator.model
        self.slots = slots
        self.episodes = list(range(rows))  # the episode of each cache row
        self.cache: Cache | None = None
        self.used = 0  # slots written so far (the cache's own write position)
        self.visible = torch.zeros(0, 0, dtype=torch.bool)
        self.tokens: list[list[int]] = []  # per row: the tokens its visible slots hold
        self.at: list[list[int]] = []  # per row: the slot of each of those tokens
        self.rebuilds = 0

    @torch.no_grad()
    def generate(
        self, episodes: Sequence[int], contexts: Sequence[list[int]], sampling: SamplingConfig
    ) -> Rollout:
        """Sample the next message of `episodes` (a subsequence of the last call's, in the
        same order) given each one's whole context; a rollout with a row per episode."""
        device = next(self.model.parameters()).device
        self._keep(list(episodes))
        new = self._new_tokens(contexts)
        width = max(len(n) for n in new)
        if self.cache is None or self.used + width + sampling.max_new_tokens > self.slots:
            new = self._rebuild(contexts, sampling.max_new_tokens, device)
            width = max(len(n) for n in new)
        stops = self._stops()
        was_training = self.model.training
        self.model.eval()
        try:
            completion, logprobs = self._turn(new, width, sampling, stops, device)
        finally:
            self.model.train(was_training)
        ids = torch.zeros(len(new), 0, dtype=torch.long, device=device)
        return finish_rollout(
            ids,
            ids,
            completion,
            self.generator.tokenizer,
            logprobs,
            stops=stops,
            prompt_format=self.generator.prompt_format,
        )

    def _stops(self) -> list[int]:
        g = self.generator
        return generator_stops(g.model, g.tokenizer, g.prompt_format)

    def _keep(self, episodes: list[int]) -> None:
        """Drop the rows of episodes that ended since the last turn."""
        if episodes == self.episodes:
            return
        row_of = {episode: row for row, episode in enumerate(self.episodes)}
        keep = [row_of[e] for e in episodes]
        self.episodes = episodes
        if self.cache is None:
            return
        index = torch.tensor(keep, dtype=torch.long, device=self.visible.device)
        expand_cache(self.cache, index)
        self.visible = self.visible.index_select(0, index)
        self.tokens = [self.tokens[r] for r in keep]
        self.at = [self.at[r] for r in keep]

    def _new_tokens(self, contexts: Sequence[list[int]]) -> list[list[int]]:
        """Per row, the context's tokens the cache lacks; what it holds beyond them is hidden.

        At least one token is fed per row (its logits are the next token's), so a row whose
        cache already holds its whole context feeds its last token again.
        """
        new: list[list[int]] = []
        for row, context in enumerate(contexts):
            held = self.tokens[row] if self.cache is not None else []
            same = 0
            for a, b in zip(held, context, strict=False):
                if a != b:
                    break
                same += 1
            same = min(same, len(context) - 1)
            if self.cache is not None and same < len(held):
                self.visible[row, self.at[row][same:]] = False
                del self.tokens[row][same:], self.at[row][same:]
            new.append(list(context[same:]))
        return new

    def _rebuild(
        self, contexts: Sequence[list[int]], max_new: int, device: torch.device
    ) -> list[list[int]]:
        """A fresh cache, large enough for the contexts and this turn; every context is new."""
        longest = max(len(c) for c in contexts)
        self.slots = max(self.slots, 2 * (longest + max_new))
        self.cache = filled_cache(self.model.config, self.slots)
        self.used = 0
        self.visible = torch.zeros(len(contexts), self.slots, dtype=torch.bool, device=device)
        self.tokens = [[] for _ in contexts]
        self.at = [[] for _ in contexts]
        self.rebuilds += 1
        return [list(c) for c in contexts]

    def _turn(
        self,
        new: list[list[int]],
        width: int,
        sampling: SamplingConfig,
        stops: list[int],
        device: torch.device,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Feed `new` (right-aligned in `width` slots), then sample up to max_new_tokens."""
        assert self.cache is not None
        pad = self.generator.tokenizer.pad_token_id
        rows = len(new)
        base = self.used
        ids = torch.full((rows, width), pad, dtype=torch.long, device=device)
        mask = torch.zeros((rows, width), dtype=torch.bool, device=device)
        for row, fed in enumerate(new):
            first = base + width - len(fed)
            ids[row, width - len(fed) :] = torch.tensor(fed, dtype=torch.long)
            mask[row, width - len(fed) :] = True
            self.tokens[row] += fed
            self.at[row] += range(first, base + width)
        self.visible[:, base : base + width] = mask
        held = torch.tensor([len(t) for t in self.tokens], dtype=torch.long, device=device)
        # Each new token's position: the row's real tokens before it.
        positions = held[:, None] - mask.sum(dim=1, keepdim=True) + mask.long().cumsum(dim=1) - 1
        positions = positions.clamp(min=0)
        filled = base + width
        slots = torch.arange(filled, device=device)[None, :]
        queries = torch.arange(base, filled, device=device)[:, None]
        # A padding query sees itself only: its (unused) output stays finite.
        allowed = (self.visible[:, None, :filled] & (slots <= queries)) | (slots == queries)
        _fill(self.cache, filled)
        logits = forward_logits(self.model, self.model.forward, ids, positions, allowed, self.cache)
        self.used = filled

        max_new = sampling.max_new_tokens
        stop = torch.tensor(stops, device=device)
        completion = torch.full((rows, max_new), pad, dtype=torch.long, device=device)
        logprobs = torch.zeros(rows, max_new, device=device)
        finished = torch.zeros(rows, dtype=torch.bool, device=device)
        for t in range(max_new):
            tokens, token_logps = sample(logits, sampling)
            completion[:, t], logprobs[:, t] = tokens, token_logps
            finished |= torch.isin(tokens, stop)
            if t == max_new - 1 or bool(finished.all()):
                return completion[:, : t + 1], logprobs[:, : t + 1]
            slot = self.used
            self.visible[:, slot] = True
            for row, token in enumerate(tokens.tolist()):
                self.tokens[row].append(token)
                self.at[row].append(slot)
            self.used += 1
            _fill(self.cache, self.used)
            visible = self.visible[:, None, : self.used]
            step = self.generator.step_forward
            logits = forward_logits(
                self.model, step, tokens[:, None], (held + t)[:, None], visible, self.cache
            )
        raise AssertionError("unreachable: the loop returns at its last step")

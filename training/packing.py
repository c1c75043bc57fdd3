"""Padding-free training forward passes: a batch's sequences packed end to end.

A rollout is a padded (B, L) batch: prompts left-padded to the longest prompt, completions
right-padded to the longest completion. Where lengths vary (episodes of 1 to 7 turns,
answers of 3 to 300 tokens) much of that rectangle is padding, and a forward and backward
pass costs as much per padded token as per real one. A `Packing` lays each row's real
tokens, unchanged and in order, into rows of a fixed width, several sequences to a row where
they fit (first-fit decreasing), so the pass runs on little more than the real tokens.

Nothing the model computes changes: every token keeps the position it had in the padded
row (the padded pass numbers positions by column), and an explicit block-causal mask lets a
token attend only to the earlier tokens of its own sequence, as the padded row's mask did.
`Packing.outputs` gathers the packed logits (or hidden states) back into the padded layout
at each completion token's predictor, so the loss reads the same (B, C, ...) tensors either
way. Fillers at a packed row's end attend only to each other and are never read.

`plan` weighs the two layouts with `PassCost` and declines (returns None) where packing does
not pay or would hold more memory: a wider row makes each token's attention dearer, and the
packed pass computes logits at every position where the padded one keeps only the
completion's. It also declines rows whose real tokens are not one contiguous span.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from training.budget import ACTIVATION_VALUES_PER_HIDDEN, LOGIT_COPIES

MIN_SAVING = 0.05
"""Pack only when the estimate drops at least this share of the padded pass's compute: below
it the gathers and the larger mask are not worth it."""
WIDTHS = (1.0, 1.5, 2.0)
"""Packed row widths tried, as multiples of the longest sequence: wider rows waste less at
their ends and attend over more keys per token; `plan` keeps the cheapest."""


@dataclass(frozen=True)
class PassCost:
    """What a training pass over a layout costs, in units of one token through the layers.

    Compute: a token attending over `width` keys adds width / (6 x hidden) to its layers'
    linear work (4 x width x hidden attention FLOPs against about 24 x hidden^2 a layer), and
    a position whose logits are computed adds `head_compute` (2 x hidden x vocab FLOPs
    against the layers' 24 x hidden^2 x layers). Memory: a token keeps its activations for
    the backward pass, a position its logits' fp32 copies, `head_memory` times as many values
    (`training.budget` counts both the same way).
    """

    hidden: int
    head_compute: float
    head_memory: float

    @classmethod
    def of(cls, hidden: int, vocab: int, layers: int, kept_layers: int) -> PassCost:
        """For a model of `hidden` width, `vocab` logits and `layers` layers, keeping
        `kept_layers` of them for its backward pass (one under gradient checkpointing)."""
        kept = ACTIVATION_VALUES_PER_HIDDEN * hidden * max(kept_layers, 1)
        return cls(hidden, vocab / (12 * hidden * max(layers, 1)), LOGIT_COPIES * vocab / kept)

    def compute(self, rows: int, width: int, logit_positions: int) -> float:
        attention = 1 + width / (6 * self.hidden)
        return rows * width * attention + logit_positions * self.head_compute

    def memory(self, rows: int, width: int, logit_positions: int) -> float:
        return rows * width + logit_positions * self.head_memory


@dataclass(frozen=True)
class Packing:
    source: torch.Tensor
    """(R, W) index of each packed token in the flattened (B * L) padded batch; 0 for fillers."""
    positions: torch.Tensor
    """(R, W) each packed token's position: its column in the padded row (0 for fillers)."""
    rows: torch.Tensor
    """(R, W) the padded row each packed token comes from; B (no row) for fillers."""
    allowed: torch.Tensor
    """(R, W, W) bool: query token q of a packed row may attend to key token k."""
    target: torch.Tensor
    """(B, C) index into the flattened (R * W) packed output of the token whose output
    predicts completion token c of row b (the one before it); 0 where that token is padding."""

    def inputs(self, input_ids: torch.Tensor) -> torch.Tensor:
        """The padded (B, L) ids laid out packed, (R, W)."""
        return input_ids.reshape(-1)[self.source]

    def outputs(self, packed: torch.Tensor) -> torch.Tensor:
        """Packed outputs (R, W, ...) -> (B, C, ...) at each completion token's predictor."""
        return packed.reshape(-1, *packed.shape[2:])[self.target]


def plan(attention_mask: torch.Tensor, completion_width: int, cost: PassCost) -> Packing | None:
    """How to pack the padded batch `attention_mask` (B, L) whose last `completion_width`
    columns are completions, or None where packing does not pay or would not be exact."""
    mask = attention_mask.bool()
    rows, width = mask.shape
    n = completion_width
    lengths = mask.sum(dim=1)
    columns = torch.arange(width, device=mask.device)
    starts = torch.where(mask, columns, width).amin(dim=1)
    ends = torch.where(mask, columns, -1).amax(dim=1) + 1
    if (lengths == 0).any() or (ends - starts != lengths).any() or not mask[:, width - n - 1].all():
        return None  # a hole inside a row, or a completion without the prompt token before it
    longest = int(lengths.max())
    layouts = []
    for multiple in WIDTHS:
        capacity = max(longest, int(longest * multiple))
        bins, offsets = first_fit_decreasing(lengths.tolist(), capacity)
        n_bins = max(bins) + 1
        slots = n_bins * capacity
        compute = cost.compute(n_bins, capacity, slots)
        layouts.append((compute, capacity, cost.memory(n_bins, capacity, slots), bins, offsets))
    compute, capacity, memory, bins, offsets = min(layouts, key=lambda layout: layout[:2])
    padded = rows * (n + 1)  # the padded pass's logit positions
    if compute > (1 - MIN_SAVING) * cost.compute(rows, width, padded) or memory > cost.memory(
        rows, width, padded
    ):
        return None
    return _layout(mask, n, starts, capacity, bins, offsets)


def _layout(
    mask: torch.Tensor,
    n: int,
    starts: torch.Tensor,
    capacity: int,
    bins: list[int],
    offsets: list[int],
) -> Packing:
    rows, width = mask.shape
    device = mask.device
    n_bins = max(bins) + 1
    packed = n_bins * capacity
    begin = torch.tensor(bins, device=device) * capacity + torch.tensor(offsets, device=device)
    begin = begin - starts  # packed slot of each row's column 0
    row, col = mask.nonzero(as_tuple=True)  # every real token
    slot = begin[row] + col
    source = torch.zeros(packed, dtype=torch.long, device=device)
    source[slot] = row * width + col
    positions = torch.zeros(packed, dtype=torch.long, device=device)
    positions[slot] = col
    row_of = torch.full((packed,), rows, dtype=torch.long, device=device)  # fillers: `rows`
    row_of[slot] = row
    row_of = row_of.view(n_bins, capacity)
    causal = torch.ones(capacity, capacity, dtype=torch.bool, device=device).tril()
    allowed = (row_of[:, :, None] == row_of[:, None, :]) & causal
    predictor = torch.arange(width - n - 1, width - 1, device=device).expand(rows, n)
    target = torch.where(mask.gather(1, predictor), begin[:, None] + predictor, 0)
    return Packing(
        source.view(n_bins, capacity), positions.view(n_bins, capacity), row_of, allowed, target
    )


def first_fit_decreasing(lengths: list[int], capacity: int) -> tuple[list[int], list[int]]:
    """Each item's bin and offset in it: the longest first, each into the first bin it fits."""
    bins, offsets = [0] * len(lengths), [0] * len(lengths)
    filled: list[int] = []
    for item in sorted(range(len(lengths)), key=lambda i: -lengths[i]):
        size = lengths[item]
        for b, used in enumerate(filled):
            if used + size <= capacity:
                bins[item], offsets[item] = b, used
                filled[b] = used + size
                break
        else:
            bins[item], offsets[item] = len(filled), 0
            filled.append(size)
    return bins, offsets

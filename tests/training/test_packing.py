"""Packed training passes compute what the padded pass computes, on the real architectures,
and the plan packs only where it pays."""

import pytest
import torch

from training import packing
from training.config import ModelConfig
from training.generation import Rollout
from training.lora import LoraConfig, apply_lora
from training.losses import token_logprobs
from training.models import load_model
from training.packing import PassCost, first_fit_decreasing, plan
from training.step import completion_logits, pass_cost

TINY = PassCost.of(hidden=64, vocab=512, layers=2, kept_layers=2)


def episodes(vocab: int, prompts: list[int], completions: list[int], seed: int = 0) -> Rollout:
    """A padded rollout like an episode batch's: prompts of `prompts` tokens left-padded,
    completions of `completions` tokens right-padded, every third completion token the
    environment's (attended, not trained)."""
    gen = torch.Generator().manual_seed(seed)
    rows, p, c = len(prompts), max(prompts), max(completions)
    prompt_mask = torch.zeros(rows, p, dtype=torch.long)
    attended = torch.zeros(rows, c, dtype=torch.long)
    for i, (a, b) in enumerate(zip(prompts, completions, strict=True)):
        prompt_mask[i, p - a :] = 1
        attended[i, :b] = 1
    trained = attended * (torch.arange(c) % 3 != 2)
    prompt_ids = torch.randint(3, vocab, (rows, p), generator=gen) * prompt_mask
    completion_ids = torch.randint(3, vocab, (rows, c), generator=gen) * attended
    return Rollout(
        prompt_ids,
        prompt_mask,
        completion_ids,
        trained,
        [""] * rows,
        torch.zeros(rows, dtype=torch.bool),
        completion_attention=attended,
    )


LENGTHS = dict(
    prompts=[5, 7, 7, 6, 7, 4, 7, 7, 6, 5],
    completions=[3, 40, 13, 23, 33, 3, 40, 9, 13, 23],
)


def padded(model, rollout, hidden=False):  # type: ignore[no-untyped-def]
    """The padded pass, as `completion_logits` runs it where it does not pack."""
    n = rollout.completion_ids.shape[1]
    out = model(
        input_ids=rollout.input_ids,
        attention_mask=rollout.attention_mask,
        logits_to_keep=n + 1,
        output_hidden_states=hidden,
    )
    return out.logits[:, :-1].float(), out.hidden_states[-1][:, -n - 1 : -1] if hidden else None


@pytest.mark.parametrize("architecture", ["llama", "qwen2", "mistral", "gemma", "phi3"])
def test_a_packed_pass_gives_the_padded_pass_logits_hidden_states_and_gradients(
    tiny_build, architecture
):
    model, _ = load_model(ModelConfig(path=str(tiny_build(architecture))))
    rollout = episodes(model.config.vocab_size, **LENGTHS)
    n = rollout.completion_ids.shape[1]
    cost = pass_cost(model)
    assert cost is not None
    assert plan(rollout.attention_mask, n, cost) is not None  # this batch packs
    mask = rollout.completion_mask.bool()

    def loss_and_grads(logits):  # type: ignore[no-untyped-def]
        model.zero_grad()
        loss = (token_logprobs(logits, rollout.completion_ids) * mask).sum()
        loss.backward()
        return {k: p.grad.clone() for k, p in model.named_parameters() if p.grad is not None}

    packed_logits, packed_states = completion_logits(model, rollout, 1.0, hidden=True)
    want_logits, want_states = padded(model, rollout, hidden=True)
    assert packed_logits.shape == want_logits.shape
    assert (packed_logits - want_logits)[mask].abs().max() < 1e-4
    assert packed_states is not None and want_states is not None
    assert (packed_states - want_states)[mask].abs().max() < 1e-4
    got, want = loss_and_grads(packed_logits), loss_and_grads(want_logits)
    assert got.keys() == want.keys()
    for name in want:
        assert torch.allclose(got[name], want[name], atol=1e-4, rtol=1e-3), name


def test_a_lora_adapted_model_packs_and_gives_the_same_logits(tiny_build):
    path = tiny_build("qwen2")
    model, _ = load_model(ModelConfig(path=str(path)))
    adapted = apply_lora(model, LoraConfig(rank=2), str(path))
    rollout = episodes(model.config.vocab_size, **LENGTHS)
    assert pass_cost(adapted) is not None
    packed_logits, _ = completion_logits(adapted, rollout, 0.7)
    want, _ = padded(adapted, rollout)
    mask = rollout.completion_mask.bool()
    assert (packed_logits - want / 0.7)[mask].abs().max() < 1e-4


def test_a_sliding_window_model_runs_the_padded_pass(tiny_build):
    model, _ = load_model(ModelConfig(path=str(tiny_build("gemma2"))))
    assert pass_cost(model) is None  # its layers do not all attend to the whole sequence
    rollout = episodes(model.config.vocab_size, **LENGTHS)
    logits, _ = completion_logits(model, rollout, 1.0)
    want, _ = padded(model, rollout)
    assert torch.equal(logits, want)


def test_the_plan_lays_every_real_token_once_at_its_column_seeing_only_its_own_sequence():
    rollout = episodes(512, **LENGTHS)
    mask = rollout.attention_mask.bool()
    rows, width = mask.shape
    laid = plan(rollout.attention_mask, rollout.completion_ids.shape[1], TINY)
    assert laid is not None
    assert laid.source.numel() < mask.numel()  # fewer slots than the padded batch
    real = laid.rows < rows
    assert sorted(laid.source[real].tolist()) == mask.view(-1).nonzero().squeeze(1).tolist()
    assert torch.equal(laid.rows[real], laid.source[real] // width)
    assert torch.equal(laid.positions[real], laid.source[real] % width)
    slots = laid.source.shape[1]
    causal = torch.ones(slots, slots, dtype=torch.bool).tril()
    assert torch.equal(laid.allowed, (laid.rows[:, :, None] == laid.rows[:, None, :]) & causal)
    # a sequence's tokens sit side by side, in their order
    for r in range(rows):
        at = (laid.rows == r).nonzero()
        assert len(set(at[:, 0].tolist())) == 1
        assert torch.equal(at[:, 1], torch.arange(at[0, 1], at[0, 1] + len(at)))
    # each completion token is read from the output of the token before it
    predicted = laid.source.view(-1)[laid.target] + 1
    expected = torch.arange(width - rollout.completion_ids.shape[1], width) + (
        torch.arange(rows)[:, None] * width
    )
    trained = rollout.completion_mask.bool()
    assert torch.equal(predicted[trained], expected[trained])


def test_it_declines_where_packing_does_not_pay_or_cannot_be_exact():
    # every row the same length: nothing to save
    same = episodes(512, prompts=[6] * 8, completions=[20] * 8)
    assert plan(same.attention_mask, 20, TINY) is None
    # a row with a hole in its attended tokens
    holed = episodes(512, **LENGTHS)
    holed.completion_attention[1, 5] = 0
    assert plan(holed.attention_mask, holed.completion_ids.shape[1], TINY) is None
    # prompts of varied length before short answers: packing saves the prompts' padding, but
    # computes logits at every prompt position, which a large vocabulary makes dearer
    short = episodes(512, prompts=[40, 5, 5, 4, 5, 5, 3, 5], completions=[3, 2, 3, 3, 1, 3, 3, 2])
    assert plan(short.attention_mask, 3, TINY) is not None
    huge = PassCost.of(hidden=64, vocab=200_000, layers=2, kept_layers=2)
    assert plan(short.attention_mask, 3, huge) is None


def test_first_fit_decreasing_places_every_item_without_overflow():
    lengths = [45, 75, 15, 55, 65, 25, 35, 75, 45, 15, 5]
    bins, offsets = first_fit_decreasing(lengths, 75)
    spans: dict[int, list[tuple[int, int]]] = {}
    for size, b, o in zip(lengths, bins, offsets, strict=True):
        spans.setdefault(b, []).append((o, o + size))
    for used in spans.values():
        used.sort()
        assert used[-1][1] <= 75
        assert all(a[1] <= b[0] for a, b in zip(used, used[1:], strict=False))
    assert max(bins) + 1 < len(lengths)
    assert packing.WIDTHS[0] == 1.0  # the longest sequence always fits a row


class Opaque(torch.nn.Module):
    """A wrapper that neither PEFT nor torch's parallel wrappers make: the model is hidden."""

    def __init__(self, model):  # type: ignore[no-untyped-def]
        super().__init__()
        self.inner = model

    def forward(self, **kwargs):  # type: ignore[no-untyped-def]
        return self.inner(**kwargs)


def test_a_model_behind_an_unknown_wrapper_runs_the_padded_pass(tiny_build):
    model, _ = load_model(ModelConfig(path=str(tiny_build("llama"))))
    wrapped = Opaque(model)
    assert pass_cost(model) is not None and pass_cost(wrapped) is None
    rollout = episodes(model.config.vocab_size, **LENGTHS)
    logits, _ = completion_logits(wrapped, rollout, 1.0)
    want, _ = padded(model, rollout)
    assert torch.equal(logits, want)

"""Episodes decoded on a KV cache kept across turns play exactly what prefilling every turn's
whole context plays, and score their tokens as the training forward pass does."""

import dataclasses

import pytest
import torch

from training import guessing
from training.config import ModelConfig, SamplingConfig
from training.decode import DecodeGenerator
from training.demo import EnvDemoSettings, env_base_model
from training.episodes import EnvironmentSpec, EnvTurn, TurnLimits, play
from training.losses import token_logprobs
from training.models import build_tiny_model, load_model, train_tokenizer
from training.prompting import RAW_FORMAT, PromptFormat
from training.step import completion_logits
from training.turn_decode import TurnDecoder

GREEDY = SamplingConfig(max_new_tokens=3, temperature=0.0)
SAMPLED = SamplingConfig(max_new_tokens=3, temperature=1.0)


class EveryTurn:
    """The same decode loop without the kept cache: each turn prefills the whole context."""

    def __init__(self, generator: DecodeGenerator) -> None:
        self.generator = generator

    def generate_tokens(self, ids, mask, sampling, n=1):  # type: ignore[no-untyped-def]
        return self.generator.generate_tokens(ids, mask, sampling, n)


@pytest.fixture(scope="module")
def tiny():
    tokenizer = train_tokenizer(guessing.corpus(300))
    return build_tiny_model(tokenizer, layers=2, width=32, seed=0).eval(), tokenizer


@pytest.fixture(scope="module")
def taught():
    """The env demo's base after a little SFT: it ends its turns with the stop token, at
    different steps on different rows."""
    model, tokenizer = env_base_model(EnvDemoSettings(sft_steps=40, seed=0))
    return model.eval(), tokenizer


class Counting(TurnDecoder):
    """Counts the cached tokens each turn hides (sampled past a row's stop token)."""

    hidden = 0

    def _new_tokens(self, contexts):  # type: ignore[no-untyped-def]
        before = [len(t) for t in self.tokens] if self.cache is not None else []
        new = super()._new_tokens(contexts)
        Counting.hidden += sum(b - len(t) for b, t in zip(before, self.tokens, strict=False))
        return new


def play_with(generator, tokenizer, fmt, spec, items, sampling, seed=0):  # type: ignore[no-untyped-def]
    torch.manual_seed(seed)
    return play(generator, tokenizer, fmt, spec, items, sampling, torch.device("cpu"))


def assert_same_play(kept, every) -> None:  # type: ignore[no-untyped-def]
    assert [r.messages for r in kept.records] == [r.messages for r in every.records]
    assert torch.equal(kept.rollout.completion_ids, every.rollout.completion_ids)
    mask = kept.rollout.completion_mask.bool()
    assert (kept.rollout.logprobs - every.rollout.logprobs)[mask].abs().max() < 1e-4


@pytest.mark.parametrize("which", ["tiny", "taught"])
def test_a_kept_cache_plays_what_a_prefill_of_every_turn_plays(request, which):
    model, tokenizer = request.getfixturevalue(which)
    items = guessing.held_out(12, seed=3)
    spec = guessing.environment()
    generator = DecodeGenerator(model, tokenizer)
    kept = play_with(generator, tokenizer, RAW_FORMAT, spec, items, GREEDY)
    every = play_with(EveryTurn(generator), tokenizer, RAW_FORMAT, spec, items, GREEDY)
    assert max(r.turns for r in kept.records) > 2  # several turns on the kept cache
    assert_same_play(kept, every)


def test_a_cache_rebuilt_when_full_plays_the_same(tiny, monkeypatch):
    model, tokenizer = tiny
    items = guessing.held_out(8, seed=4)
    spec = guessing.environment()
    generator = DecodeGenerator(model, tokenizer)
    decoders: list[TurnDecoder] = []

    class Small(TurnDecoder):
        def __init__(self, generator, rows, slots):  # type: ignore[no-untyped-def]
            super().__init__(generator, rows, 1)  # too small for anything: rebuilt each time
            decoders.append(self)

        def _rebuild(self, contexts, max_new, device):  # type: ignore[no-untyped-def]
            new = super()._rebuild(contexts, max_new, device)
            self.slots = max(len(c) for c in contexts) + max_new + 4  # little room to grow
            self.cache = type(self.cache)(
                layers=[type(layer)(max_cache_len=self.slots) for layer in self.cache.layers]
            )
            self.visible = self.visible[:, : self.slots]
            return new

    monkeypatch.setattr("training.episodes.TurnDecoder", Small)
    kept = play_with(generator, tokenizer, RAW_FORMAT, spec, items, GREEDY)
    every = play_with(EveryTurn(generator), tokenizer, RAW_FORMAT, spec, items, GREEDY)
    assert decoders and decoders[0].rebuilds > 1
    assert_same_play(kept, every)


def test_sampled_logprobs_are_the_training_forward_passes_on_every_assistant_token(
    taught, monkeypatch
):
    # Rows stop at different steps: the tokens they sampled past their stop stay in the
    # cache, hidden, and the next turn's tokens sit after them.
    model, tokenizer = taught
    monkeypatch.setattr("training.episodes.TurnDecoder", Counting)
    Counting.hidden = 0
    items = [it for it in guessing.held_out(6, seed=6) for _ in range(4)]
    out = play_with(
        DecodeGenerator(model, tokenizer),
        tokenizer,
        RAW_FORMAT,
        guessing.environment(),
        items,
        SAMPLED,
    ).rollout
    with torch.no_grad():
        logits, _ = completion_logits(model, out, SAMPLED.temperature)
    logps = token_logprobs(logits, out.completion_ids)
    mask = out.completion_mask.bool()
    assert (logps - out.logprobs)[mask].abs().max() < 1e-4
    assert Counting.hidden > 0


class Echo:
    """Answers every message with a line of feedback of its own length; three turns."""

    def __init__(self, item):  # type: ignore[no-untyped-def]
        self.said: list[str] = []

    def open(self):  # type: ignore[no-untyped-def]
        return [{"role": "user", "content": "say something"}], []

    def reply(self, text):  # type: ignore[no-untyped-def]
        self.said.append(text)
        feedback = "more " * (1 + len(self.said) % 3)
        return EnvTurn([{"role": "user", "content": feedback}], done=len(self.said) == 3)

    def final_state(self):  # type: ignore[no-untyped-def]
        return {"answer": self.said[-1]}


@pytest.mark.parametrize("architecture", ["qwen2", "llama"])
def test_in_chat_format_a_kept_cache_plays_the_same(tiny_build, architecture):
    model, tokenizer = load_model(ModelConfig(path=str(tiny_build(architecture))))
    fmt = PromptFormat(kind="chat", system_prompt="be brief")
    limits = TurnLimits(max_turns=3, max_tokens_per_turn=4, max_total_tokens=200)
    spec = EnvironmentSpec(Echo, lambda items, eps: [None] * len(eps), limits)
    items = guessing.held_out(4, seed=2)
    generator = DecodeGenerator(model, tokenizer, prompt_format=fmt)
    sampling = dataclasses.replace(GREEDY, max_new_tokens=4)
    kept = play_with(generator, tokenizer, fmt, spec, items, sampling)
    every = play_with(EveryTurn(generator), tokenizer, fmt, spec, items, sampling)
    assert all(r.turns == 3 for r in kept.records)
    assert_same_play(kept, every)

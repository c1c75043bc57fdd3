"""Chat format end to end on the tiny Qwen2 and Llama builds: prompts go through the chat
template, generation stops at `<|im_end|>`, the verifier reads the answer after the reasoning
section, and a short GRPO run trains in that format."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

from training import digits
from training import metric_catalogue as metric
from training.config import GRPOConfig, ModelConfig, SamplingConfig, SFTConfig
from training.decode import DecodeGenerator, make_generator
from training.engine import train
from training.evaluation import evaluate
from training.generation import HFGenerator, generator_stops
from training.interfaces import MemorySink, RewardResult
from training.models import load_model, save_model
from training.prompting import RAW_FORMAT, PromptFormat, render, split_reasoning
from training.serving import BatchingServer, Pending

CHAT = PromptFormat(kind="chat", system_prompt="Sort the digits.")
GREEDY = SamplingConfig(max_new_tokens=24, temperature=0)
PROMPTS = ["sort 3142=", "sort 97=", "sort 55301=", "sort 620="]


class ThinkingSampler(digits.DigitSortSampler):
    """Digit lists whose reference answer reasons first: `<think>3142</think>1234`."""

    def sample(self, n):
        return [
            dataclasses.replace(it, answer=f"<think>{it.payload['digits']}</think>{it.answer}")
            for it in super().sample(n)
        ]


@pytest.fixture(scope="session")
def chat_sft_dir(tiny_build, tmp_path_factory):
    """Each tiny build after 300 chat-format SFT steps on reasoned answers: it writes a
    reasoning section, an answer, then `<|im_end|>`."""
    built = {}

    def get(arch: str):
        if arch not in built:
            model, tokenizer = load_model(ModelConfig(path=str(tiny_build(arch))))
            config = SFTConfig(
                max_steps=300, prompts_per_step=16, learning_rate=1e-2, cpu_threads=1
            )
            train(
                config,
                sampler=ThinkingSampler(2, 5, seed=1),
                reward_fn=digits.reward_fn,
                model=model,
                tokenizer=tokenizer,
                prompt_format=CHAT,
            )
            built[arch] = tmp_path_factory.mktemp(f"chat-sft-{arch}")
            save_model(model, tokenizer, built[arch])
        return built[arch]

    return get


@pytest.mark.parametrize("arch", ["qwen2", "llama"])
@pytest.mark.parametrize("generator", [DecodeGenerator, HFGenerator])
def test_prompts_carry_the_template_and_completions_stop_at_im_end(chat_sft_dir, arch, generator):
    model, tokenizer = load_model(ModelConfig(path=str(chat_sft_dir(arch))))
    im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    # Only the tokenizer's EOS in the generation config: the template's end of turn must
    # stop generation by itself.
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    out = generator(model, tokenizer, prompt_format=CHAT).generate(PROMPTS, GREEDY)
    for row, prompt in enumerate(PROMPTS):
        ids = out.prompt_ids[row][out.prompt_mask[row].bool()]
        assert tokenizer.decode(ids) == render(tokenizer, prompt, CHAT)
        completion = out.completion_ids[row][out.completion_mask[row].bool()].tolist()
        assert completion[-1] == im_end and im_end not in completion[:-1]
        assert "<|im_end|>" not in out.texts[row] and "<think>" in out.texts[row]
    assert not out.truncated.any()
    assert out.reasoning_lengths is not None and (out.reasoning_lengths > 0).all()


def test_the_verifier_judges_the_answer_after_the_reasoning(chat_sft_dir):
    model, tokenizer = load_model(ModelConfig(path=str(chat_sft_dir("qwen2"))))
    seen: list[str] = []

    def starts_with_a_digit(items, texts):
        seen.extend(texts)
        return [RewardResult(float(t[:1].isdigit()), passed=t[:1].isdigit()) for t in texts]

    items = digits.held_out(16, 2, 5, seed=3)
    result = evaluate(
        model, tokenizer, items, starts_with_a_digit, temperature=0, max_new_tokens=24,
        prompt_format=CHAT,
    )  # fmt: skip
    whole = HFGenerator(model, tokenizer, CHAT).generate([it.prompt for it in items], GREEDY)
    assert all(text.startswith("<think>") for text in whole.texts)
    assert seen == [split_reasoning(text, CHAT)[1] for text in whole.texts]
    assert not any("<think>" in t or "</think>" in t for t in seen)
    # judged whole, every completion would fail: it starts with its reasoning
    assert result.success > 0.5


@pytest.mark.parametrize("arch", ["qwen2", "llama"])
def test_a_short_grpo_run_trains_in_chat_format(chat_sft_dir, arch):
    model, tokenizer = load_model(ModelConfig(path=str(chat_sft_dir(arch))))
    before = {name: value.clone() for name, value in model.state_dict().items()}
    sink = MemorySink()
    judged: list[str] = []

    def reward_fn(items, texts):
        judged.extend(texts)
        return digits.reward_fn(items, texts)

    config = GRPOConfig(
        max_steps=3,
        prompts_per_step=4,
        group_size=4,
        learning_rate=1e-3,
        entropy_coef=0.01,  # a gradient whatever the rewards
        sampling=SamplingConfig(max_new_tokens=24),
        cpu_threads=1,
        eval_every=3,
        verification_workers=1,  # judged in row order
    )
    completions: list[str] = []

    class Collect:
        def rollouts(self, step, rows):
            completions.extend(row.text for row in rows)

    result = train(
        config,
        sampler=digits.DigitSortSampler(2, 5, seed=2),
        reward_fn=reward_fn,
        sink=sink,
        model=model,
        tokenizer=tokenizer,
        eval_items=digits.held_out(8, 2, 5, seed=4),
        prompt_format=CHAT,
        rollout_sink=Collect(),
    )
    assert result.steps == 3 and len(sink.rows) == 3
    for _, row in sink.rows:
        assert math.isfinite(row[metric.LOSS_POLICY])
        assert row[metric.COMPLETIONS_REASONING_TOKENS] > 0
        assert row[metric.COMPLETIONS_REASONING_TOKENS] < row[metric.COMPLETIONS_MEAN_LENGTH]
    assert "eval/success/sort_digits" in sink.rows[-1][1]
    # the rollout keeps whole completions; the verifier got each one's answer, then the
    # held-out evaluation's
    assert len(completions) == 3 * 4 * 4 and any("<think>" in t for t in completions)
    assert judged[: len(completions)] == [split_reasoning(t, CHAT)[1] for t in completions]
    assert len(judged) == len(completions) + 8
    after = result.model.state_dict()
    assert any(not torch.equal(after[name], value) for name, value in before.items())


def test_a_raw_run_reports_no_reasoning_metric(untrained):
    model, tokenizer = untrained
    sink = MemorySink()
    config = GRPOConfig(
        max_steps=1,
        prompts_per_step=2,
        group_size=2,
        sampling=SamplingConfig(max_new_tokens=4),
        cpu_threads=1,
    )
    train(
        config,
        sampler=digits.DigitSortSampler(2, 4),
        reward_fn=lambda items, texts: [RewardResult(0.0) for _ in texts],
        sink=sink,
        model=model,
        tokenizer=tokenizer,
    )
    assert metric.COMPLETIONS_REASONING_TOKENS not in sink.rows[0][1]


def test_a_chat_run_on_a_model_without_a_template_fails_naming_the_field(untrained):
    model, tokenizer = untrained
    with pytest.raises(ValueError, match="prompt_format.kind: chat needs a tokenizer"):
        train(
            GRPOConfig(max_steps=1, prompts_per_step=2, group_size=2),
            sampler=digits.DigitSortSampler(2, 4),
            reward_fn=digits.reward_fn,
            model=model,
            tokenizer=tokenizer,
            prompt_format=CHAT,
        )


def test_the_serving_path_stops_where_training_does(chat_sft_dir):
    model, tokenizer = load_model(ModelConfig(path=str(chat_sft_dir("qwen2"))))
    im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    # a replica loads the directory and builds its generator the same way, raw by default:
    # the generation config's end of turn stops it too
    assert im_end in generator_stops(model, tokenizer, RAW_FORMAT)
    generator = make_generator(SamplingConfig(), model, tokenizer, CHAT)
    expected = generator.generate(PROMPTS[:1], GREEDY)
    server = BatchingServer(generator, max_batch=1)
    server.start()
    try:
        pending = server.submit(Pending(PROMPTS[0], GREEDY.max_new_tokens, 0.0))
        assert pending.done.wait(60)
    finally:
        server.stop()
    assert pending.error is None and not pending.truncated
    assert pending.completion == expected.texts[0]
    assert pending.output_tokens == int(expected.lengths[0])

"""The engine's decode loop against Hugging Face `generate`, its reference."""

import pytest
import torch
from transformers import (
    MistralConfig,
    MistralForCausalLM,
    Qwen2Config,
    Qwen2ForCausalLM,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

from training import digits
from training.config import SamplingConfig
from training.decode import DecodeGenerator, filter_logits, make_generator
from training.generation import HFGenerator, Rollout
from training.losses import token_logprobs
from training.models import build_tiny_model, train_tokenizer
from training.step import completion_logits

GREEDY = SamplingConfig(max_new_tokens=12, temperature=0)


def prompts(n: int = 16) -> list[str]:
    """Lists of 2 to 8 digits: prompts of different lengths, so the batch is left-padded."""
    return [item.prompt for item in digits.held_out(n, 2, 8)]


@pytest.fixture(scope="module")
def spread():
    """An untrained 1-layer model with large random weights: peaked, prompt-dependent
    next-token distributions over the whole vocabulary."""
    tokenizer = train_tokenizer(digits.corpus(500))
    model = build_tiny_model(tokenizer, layers=1, width=32, seed=0)
    with torch.no_grad(), torch.random.fork_rng():
        torch.manual_seed(0)
        for param in model.parameters():
            if param.dim() == 2:
                param.normal_(0, 0.4)
    return model, tokenizer


def small_model(config_cls, model_cls, tokenizer, **extra):
    """A 2-layer width-32 model of another architecture with grouped-query attention (4 heads,
    2 key/value heads), seeded."""
    config = config_cls(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        **extra,
    )
    with torch.random.fork_rng():
        torch.manual_seed(1)
        return model_cls(config).eval()


def both(model, tokenizer, prompt_list, sampling, n=1) -> tuple[Rollout, Rollout]:
    hf = HFGenerator(model, tokenizer).generate(prompt_list, sampling, n)
    engine = DecodeGenerator(model, tokenizer).generate(prompt_list, sampling, n)
    return hf, engine


def assert_same(hf: Rollout, engine: Rollout) -> None:
    assert engine.texts == hf.texts
    assert torch.equal(engine.completion_ids, hf.completion_ids)
    assert torch.equal(engine.completion_mask, hf.completion_mask)
    assert torch.equal(engine.truncated, hf.truncated)
    assert torch.equal(engine.prompt_ids, hf.prompt_ids)


def test_it_decodes_greedily_like_hf_generate_with_eos_mid_batch(base):
    model, tokenizer = base
    hf, engine = both(model, tokenizer, prompts(32), GREEDY, n=2)
    assert_same(hf, engine)
    lengths = engine.lengths
    # rows end at different steps (so finished rows were dropped mid-loop), each on its EOS
    assert lengths.min() < lengths.max() <= engine.completion_ids.shape[1]
    ends = engine.completion_ids[torch.arange(len(lengths)), lengths - 1]
    assert (ends[~engine.truncated] == tokenizer.eos_token_id).all()
    assert torch.equal(engine.completion_ids[0::2], engine.completion_ids[1::2])  # n copies


@pytest.mark.parametrize("variant", ["untrained-llama", "qwen2-gqa", "eager-attention"])
def test_it_decodes_greedily_like_hf_generate_on_other_models(spread, variant):
    model, tokenizer = spread
    if variant == "qwen2-gqa":  # also q/k/v biases
        model = small_model(Qwen2Config, Qwen2ForCausalLM, tokenizer)
    if variant == "eager-attention":
        model = build_tiny_model(tokenizer, layers=2, width=32, seed=2)
        model.set_attn_implementation("eager")
    hf, engine = both(model, tokenizer, prompts(), SamplingConfig(max_new_tokens=10, temperature=0))
    assert_same(hf, engine)


def test_it_respects_max_new_tokens_and_flags_truncation(spread):
    model, tokenizer = spread
    hf, engine = both(model, tokenizer, prompts(), SamplingConfig(max_new_tokens=3, temperature=0))
    assert_same(hf, engine)
    assert engine.completion_ids.shape[1] == 3 and engine.truncated.any()
    has_eos = (engine.completion_ids == tokenizer.eos_token_id).any(dim=1)
    assert torch.equal(engine.truncated, ~has_eos)
    assert (engine.lengths[engine.truncated] == 3).all()


def test_it_samples_the_same_completions_from_the_same_seed(base):
    model, tokenizer = base
    generator = DecodeGenerator(model, tokenizer)
    runs = []
    for seed in (7, 7, 8):
        torch.manual_seed(seed)
        runs.append(generator.generate(prompts(8), SamplingConfig(max_new_tokens=12), n=4))
    assert torch.equal(runs[0].completion_ids, runs[1].completion_ids)
    assert not torch.equal(runs[0].completion_ids, runs[2].completion_ids)


@pytest.mark.parametrize("top_k, top_p", [(0, 1.0), (5, 1.0), (0, 0.7), (8, 0.9), (1, 1.0)])
def test_it_filters_logits_exactly_as_hf_warpers(top_k, top_p):
    torch.manual_seed(0)
    scores = torch.randn(64, 259) * 3
    expected = scores
    if top_k:
        expected = TopKLogitsWarper(top_k)(None, expected)
    if top_p < 1:
        expected = TopPLogitsWarper(top_p)(None, expected)
    assert torch.equal(filter_logits(scores, top_k, top_p), expected)


def exact_two_token_distribution(model, tokenizer, prompt: str, top_k: int) -> dict:
    """{(first, second): probability} of a two-token completion sampled at temperature 1 with
    top-k, by teacher-forced forward passes (after EOS the second token is padding)."""

    def next_probs(ids: list[int]) -> torch.Tensor:
        logits = model(input_ids=torch.tensor([ids])).logits[0, -1].float()
        return filter_logits(logits[None], top_k, 1.0).softmax(dim=-1)[0]

    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    out = {}
    with torch.no_grad():
        first = next_probs(prompt_ids)
        for a in first.nonzero().flatten().tolist():
            if a == tokenizer.eos_token_id:
                out[(a, tokenizer.pad_token_id)] = first[a].item()
                continue
            second = next_probs(prompt_ids + [a])
            for b in second.nonzero().flatten().tolist():
                out[(a, b)] = first[a].item() * second[b].item()
    return out


def chi_square_p_value(counts: dict, probs: dict, n: int) -> float:
    """Goodness of fit of observed `counts` to `probs` (survival function of chi-square)."""
    stat = sum((counts.get(k, 0) - n * p) ** 2 / (n * p) for k, p in probs.items())
    df = torch.tensor((len(probs) - 1) / 2, dtype=torch.float64)
    return torch.special.gammaincc(df, torch.tensor(stat / 2, dtype=torch.float64)).item()


@pytest.mark.parametrize("backend", [HFGenerator, DecodeGenerator])
def test_its_samples_follow_the_models_distribution_like_hf(spread, backend):
    """Both backends' two-token completions fit the exact top-k distribution (chi-square,
    fixed seed), and never leave its support: the decode loop samples what `generate` does."""
    model, tokenizer = spread
    sampling = SamplingConfig(max_new_tokens=2, top_k=3)
    n = 3000
    torch.manual_seed(0)
    prompt_list = ["sort 3=", "sort 91827=", "sort 5551234="]
    out = backend(model, tokenizer).generate(prompt_list, sampling, n=n)
    for i, prompt in enumerate(prompt_list):
        probs = exact_two_token_distribution(model, tokenizer, prompt, top_k=3)
        ids = out.completion_ids[i * n : (i + 1) * n]
        counts: dict = {}
        for a, b in ids.tolist():
            counts[(a, b)] = counts.get((a, b), 0) + 1
        assert set(counts) <= set(probs)  # top-k respected at both steps
        assert max(probs.values()) < 0.9  # the test distribution is not a near-constant
        assert chi_square_p_value(counts, probs, n) > 1e-3


def test_its_samples_stay_inside_the_nucleus(spread):
    model, tokenizer = spread
    sampling = SamplingConfig(max_new_tokens=6, top_p=0.6)
    torch.manual_seed(0)
    out = DecodeGenerator(model, tokenizer).generate(prompts(8), sampling, n=16)
    logits, _ = completion_logits(model, out, temperature=1.0)
    kept = filter_logits(logits.flatten(0, 1), 0, 0.6).view_as(logits) > -float("inf")
    sampled_kept = kept.gather(2, out.completion_ids[..., None]).squeeze(2)
    assert sampled_kept[out.completion_mask.bool()].all()
    assert (kept.sum(dim=2) > 1).any()  # the nucleus had a choice somewhere


@pytest.mark.parametrize("backend", [HFGenerator, DecodeGenerator])
@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_it_reports_the_log_probs_the_training_forward_pass_computes(base, backend, temperature):
    """The sampling log-probs match a teacher-forced forward pass on the same tokens: in
    float32 the train/inference gap of either backend is ~0 (cache, positions, masks agree)."""
    model, tokenizer = base
    torch.manual_seed(0)
    sampling = SamplingConfig(max_new_tokens=12, temperature=temperature)
    out = backend(model, tokenizer).generate(prompts(16), sampling, n=4)
    with torch.no_grad():
        logits, _ = completion_logits(model, out, temperature)
    train_logps = token_logprobs(logits, out.completion_ids) * out.completion_mask
    assert out.logprobs is not None
    assert (out.logprobs - train_logps).abs().max() < 1e-4
    assert out.lengths.min() < out.lengths.max()  # rows finished at different steps


def test_it_falls_back_to_hf_generate_for_sliding_window_models(spread):
    _, tokenizer = spread
    mistral = small_model(MistralConfig, MistralForCausalLM, tokenizer, sliding_window=4)
    sampling = SamplingConfig()
    assert isinstance(make_generator(sampling, mistral, tokenizer), HFGenerator)
    llama = build_tiny_model(tokenizer, layers=1, width=32)
    assert isinstance(make_generator(sampling, llama, tokenizer), DecodeGenerator)
    hf = SamplingConfig(backend="hf")
    assert isinstance(make_generator(hf, llama, tokenizer), HFGenerator)

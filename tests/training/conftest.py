"""One tiny base model, built and SFT-warm-started once per test session."""

from pathlib import Path

import pytest
import torch

from training import digits, tiny_models
from training.config import ModelConfig, SamplingConfig
from training.demo import cached_base
from training.engine import train
from training.evaluation import evaluate
from training.interfaces import MemorySink, RewardResult
from training.models import build_tiny_model, load_model, train_tokenizer

BASE_SFT_STEPS = 200


@pytest.fixture(scope="session", autouse=True)
def one_thread():
    """Tiny models run fastest single-threaded, and the CI machine is shared."""
    torch.set_num_threads(1)


@pytest.fixture(scope="session")
def base_dir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("tiny-base")
    cached_base(directory, BASE_SFT_STEPS)
    return directory


@pytest.fixture(scope="session")
def tiny_build(tmp_path_factory):
    """`tiny_build("qwen2")`: the directory of that tiny architecture, built once a session."""
    built: dict[str, Path] = {}

    def get(arch: str) -> Path:
        if arch not in built:
            built[arch] = tiny_models.build(arch, tmp_path_factory.mktemp(f"tiny-{arch}"))
        return built[arch]

    return get


@pytest.fixture
def base(base_dir):
    """A fresh (model, tokenizer) copy of the base for each test."""
    return load_model(ModelConfig(path=str(base_dir)))


@pytest.fixture(scope="session")
def held_out_items():
    return digits.held_out(256, 2, 6, seed=99)


def success(model, tokenizer, items) -> float:
    return evaluate(
        model, tokenizer, items, digits.reward_fn, temperature=1.0, max_new_tokens=12
    ).success


def train_and_compare(config, base, items, teacher: str = "exact"):
    """Train the base copy with `config` on lists of 2-6 digits; held-out success before/after."""
    model, tokenizer = base
    before = success(model, tokenizer, items)
    sink = MemorySink()
    sampler = digits.DigitSortSampler(2, 6, seed=5, teacher=teacher)
    train(
        config,
        sampler=sampler,
        reward_fn=digits.reward_fn,
        sink=sink,
        model=model,
        tokenizer=tokenizer,
    )
    return before, success(model, tokenizer, items), sink


def digit_first_reward(items, completions) -> list[RewardResult]:
    """Pass when the completion starts with a digit: about 10 of the ~96 tokens, so an
    untrained model passes ~5-10% of the time and every step has mixed groups."""
    return [RewardResult(float(t[:1].isdigit()), passed=t[:1].isdigit()) for t in completions]


def learns_digit_first(config_cls) -> tuple[float, float, MemorySink]:
    """Train, with `config_cls` (GRPO, RLOO or PPO) at the toy task's shared settings, an untrained 1-layer, width-32 model on `digit_first_reward`; held-out success
    (sampled at temperature 1, fixed seed) before and after. A policy-gradient method whose
    loss pushes the right way lifts it from ~0.05 to ~1 in 30 steps; a flipped sign, wrong
    row alignment of advantages, or a broken update leaves it flat or drives it to 0."""
    tokenizer = train_tokenizer(digits.corpus(500))
    model = build_tiny_model(tokenizer, layers=1, width=32, seed=0)
    items = digits.held_out(128, 2, 6, seed=7)

    def rate() -> float:
        return evaluate(
            model, tokenizer, items, digit_first_reward, temperature=1.0, max_new_tokens=2
        ).success

    config = config_cls(
        max_steps=30,
        prompts_per_step=8,
        group_size=8,
        learning_rate=1e-2,
        sampling=SamplingConfig(max_new_tokens=2),
        cpu_threads=1,
    )
    before = rate()
    sink = MemorySink()
    train(
        config,
        sampler=digits.DigitSortSampler(2, 6, seed=1),
        reward_fn=digit_first_reward,
        sink=sink,
        model=model,
        tokenizer=tokenizer,
    )
    return before, rate(), sink


@pytest.fixture
def untrained():
    """A fresh untrained 1-layer, width-32 model and its tokenizer: its samples are varied."""
    tokenizer = train_tokenizer(digits.corpus(500))
    return build_tiny_model(tokenizer, layers=1, width=32, seed=0), tokenizer

import json
import shutil

import pytest
import torch
from safetensors.torch import load_file

from training import digits, tiny_models
from training.config import GRPOConfig, ModelConfig, PPOConfig, SamplingConfig, config_from_dict
from training.engine import train
from training.interfaces import DirectoryStore, MemorySink
from training.lora import (
    ADAPTER_CONFIG,
    DEFAULT_TARGETS,
    MODELS_DIR_ENV,
    LoraConfig,
    apply_lora,
    base_path,
    target_modules,
)
from training.models import load_model
from training.step import build_run, reference

from .test_checkpoint import stable

LORA = LoraConfig(rank=4, alpha=8)


def config(base_dir, **overrides) -> GRPOConfig:
    # Several epochs and a KL term: old log-probs, the adapter-disabled reference and the
    # adapters' optimizer moments all have to survive a restart.
    fields = dict(
        max_steps=4,
        prompts_per_step=4,
        group_size=4,
        num_epochs=2,
        kl_estimator="k3",
        kl_coef=0.05,
        lr_schedule="linear",
        learning_rate=1e-2,
        checkpoint_every=2,
        sampling=SamplingConfig(max_new_tokens=12),
        model=ModelConfig(path=str(base_dir), lora=LORA),
        seed=7,
    )
    return GRPOConfig(**{**fields, **overrides})


def run(cfg, store=None, sink=None):
    model, tokenizer = load_model(ModelConfig(path=cfg.model.path))
    return train(
        cfg,
        sampler=digits.DigitSortSampler(3, 6, seed=11),
        reward_fn=digits.reward_fn,
        sink=sink,
        store=store,
        model=model,
        tokenizer=tokenizer,
    )


def adapters(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.named_parameters() if "lora_" in k}


def test_it_trains_only_the_adapters_against_the_base_as_reference(base_dir):
    base, _ = load_model(ModelConfig(path=str(base_dir)))
    sink = MemorySink()
    result = run(config(base_dir, max_steps=2, num_epochs=1), sink=sink)

    trained = dict(result.model.get_base_model().named_parameters())
    for name, weight in base.named_parameters():  # every base weight is untouched
        key = name.replace(".weight", ".base_layer.weight") if name in _adapted(trained) else name
        assert torch.equal(trained[key], weight), name
    assert all(not p.requires_grad for n, p in trained.items() if "lora_" not in n)
    lora_b = [p for n, p in trained.items() if "lora_B" in n]
    assert lora_b and all(p.abs().sum() > 0 for p in lora_b)  # B starts at 0; it learned
    # Before the first update the adapters add nothing (B = 0): the policy is its reference.
    assert sink.rows[0][1]["kl"] == 0.0
    assert sink.rows[1][1]["kl"] > 0.0
    # The decode loop samples with the adapters on: its log-probs are the trainer's.
    assert sink.rows[1][1]["logprob_gap/max"] < 1e-4


def _adapted(trained: dict[str, torch.Tensor]) -> set[str]:
    return {n.replace(".base_layer.weight", ".weight") for n in trained if "base_layer" in n}


def test_it_keeps_no_second_copy_for_the_reference(base_dir):
    cfg = config(base_dir)
    model, tokenizer = load_model(ModelConfig(path=str(base_dir)))
    built = build_run(cfg, model, tokenizer, digits.DigitSortSampler(seed=1), digits.reward_fn)
    assert built.ref_model is None
    trainable = {id(p) for p in built.model.parameters() if p.requires_grad}
    optimised = {id(p) for group in built.optimizer.param_groups for p in group["params"]}
    assert optimised == trainable and len(trainable) == 2 * 7 * 2  # A, B x 7 projections x 2
    with reference(built) as ref:
        assert ref is built.model


@pytest.mark.slow
def test_it_resumes_from_an_adapter_checkpoint_exactly(base_dir, tmp_path):
    straight = MemorySink()
    uninterrupted = run(config(base_dir), DirectoryStore(tmp_path / "a"), straight)

    interrupted = MemorySink(stop_after=2)
    first = run(config(base_dir), DirectoryStore(tmp_path / "b"), interrupted)
    assert first.stopped and first.steps == 2
    resumed = MemorySink()
    second = run(config(base_dir), DirectoryStore(tmp_path / "b"), resumed)

    assert [step for step, _ in resumed.rows] == [3, 4]
    assert stable(resumed.rows) == stable(straight.rows[2:])
    ours, theirs = adapters(second.model), adapters(uninterrupted.model)
    assert ours.keys() == theirs.keys() and all(torch.equal(ours[k], theirs[k]) for k in ours)


def test_a_checkpoint_holds_the_adapter_not_the_base(base_dir, tmp_path):
    store = DirectoryStore(tmp_path)
    result = run(config(base_dir, max_steps=1, checkpoint_every=1), store)
    model_dir = store.latest() / "model"
    assert not (model_dir / "model.safetensors").exists()
    saved = load_file(str(model_dir / "adapter_model.safetensors"))
    assert saved and all("lora_" in name for name in saved)
    assert json.loads((model_dir / "adapter_config.json").read_text())[
        "base_model_name_or_path"
    ] == str(base_dir)
    moments = torch.load(store.latest() / "optimizer-rank0.pt", weights_only=False)["state"]
    adapter_numel = sum(t.numel() for t in saved.values())
    assert sum(s["exp_avg"].numel() for s in moments.values()) == adapter_numel

    # Loaded back for evaluation or serving: the base with the adapter merged in.
    loaded, tokenizer = load_model(ModelConfig(path=str(model_dir)))
    ids = tokenizer(["3 1 2 ="], return_tensors="pt").input_ids
    result.model.eval()
    with torch.no_grad():
        assert torch.allclose(loaded(ids).logits, result.model(ids).logits, atol=1e-5)


def test_an_adapter_names_its_base_by_catalogue_name_and_loads_once_the_folder_moved(
    base_dir, tmp_path, monkeypatch
):
    models = tmp_path / "models"
    shutil.copytree(base_dir, models / "org" / "base")
    monkeypatch.setenv(MODELS_DIR_ENV, str(models))
    store = DirectoryStore(tmp_path / "runs")
    result = run(config(models / "org" / "base", max_steps=1, checkpoint_every=1), store)
    model_dir = store.latest() / "model"
    adapter_config = model_dir / ADAPTER_CONFIG
    assert json.loads(adapter_config.read_text())["base_model_name_or_path"] == "org/base"

    moved = models.rename(tmp_path / "elsewhere")  # another worker, or the folder moved
    monkeypatch.setenv(MODELS_DIR_ENV, str(moved))
    loaded, tokenizer = load_model(ModelConfig(path=str(model_dir)))
    ids = tokenizer(["3 1 2 ="], return_tensors="pt").input_ids
    result.model.eval()
    with torch.no_grad():
        assert torch.allclose(loaded(ids).logits, result.model(ids).logits, atol=1e-5)

    def names(base: str) -> str:
        data = json.loads(adapter_config.read_text())
        adapter_config.write_text(json.dumps({**data, "base_model_name_or_path": base}))
        return base_path(model_dir)

    # An adapter saved before names its base by absolute path: that path while it exists,
    # else the same model in the models folder.
    assert names(str(moved / "org" / "base")) == str(moved / "org" / "base")
    assert names(str(models / "org" / "base")) == str(moved / "org" / "base")
    assert names("/gone/org/base") == str(moved / "org" / "base")
    monkeypatch.setenv(MODELS_DIR_ENV, str(tmp_path / "empty"))
    with pytest.raises(ValueError, match="'org/base' is not in the models folder"):
        names("org/base")


def test_it_refuses_to_resume_a_full_checkpoint_as_lora(base_dir, tmp_path):
    store = DirectoryStore(tmp_path)
    full = config(base_dir, max_steps=1, model=ModelConfig(path=str(base_dir)))
    run(full, store)
    with pytest.raises(ValueError, match="model.lora: checkpoint .* holds full weights"):
        run(config(base_dir, max_steps=2), store)


def test_ppo_trains_adapters_with_its_value_head(base_dir):
    cfg = PPOConfig(
        max_steps=1,
        prompts_per_step=2,
        group_size=2,
        kl_estimator="k1",
        kl_coef=0.1,
        sampling=SamplingConfig(max_new_tokens=8),
        model=ModelConfig(path=str(base_dir), lora=LORA),
    )
    sink = MemorySink()
    run(cfg, sink=sink)
    assert sink.rows[0][1]["kl"] == 0.0  # the first epoch's policy is the base


@pytest.mark.parametrize("arch", ["llama", "qwen2", "qwen3", "mistral", "phi3", "gemma"])
def test_it_adapts_every_projection_of_each_architecture_by_default(arch, tmp_path):
    path = tiny_models.build(arch, tmp_path / arch, vocab_size=300)
    model, _ = load_model(ModelConfig(path=str(path)))
    adapted = apply_lora(model, LoraConfig(rank=2), str(path))
    names = {
        n.split(".lora_A")[0].split(".")[-1] for n, _ in adapted.named_parameters() if "lora_A" in n
    }
    assert sorted(names) == sorted(DEFAULT_TARGETS[arch])


def test_an_unknown_architecture_needs_its_targets_named(base_dir):
    model, _ = load_model(ModelConfig(path=str(base_dir)))
    model.config.model_type = "mamba"
    with pytest.raises(ValueError, match="model.lora.target_modules: no default"):
        target_modules(LoraConfig(rank=2), model)
    assert target_modules(LoraConfig(rank=2, target_modules=("q_proj",)), model) == ("q_proj",)


def test_the_config_names_bad_lora_fields():
    with pytest.raises(ValueError, match="model.path: LoRA saves its adapter"):
        config_from_dict({"algorithm": "grpo", "model": {"lora": {"rank": 8}}})
    with pytest.raises(ValueError, match="model.lora.dropout: must be a number"):
        config_from_dict({"algorithm": "grpo", "model": {"path": "x", "lora": {"dropout": 1}}})
    with pytest.raises(ValueError, match="model.lora.ranks: unknown field"):
        config_from_dict({"algorithm": "grpo", "model": {"lora": {"ranks": 8}}})
    stored = config_from_dict(
        {"algorithm": "grpo", "model": {"path": "x", "lora": {"rank": 8, "target_modules": ["q"]}}}
    )
    assert stored.model.lora == LoraConfig(rank=8, target_modules=("q",))
    assert config_from_dict(json.loads(json.dumps(stored.to_dict()))) == stored

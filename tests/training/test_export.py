import json

import pytest
import torch
import yaml
from peft import PeftModel
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM, AutoTokenizer

from training import digits, tiny_models
from training.config import ModelConfig, SamplingConfig, SFTConfig
from training.engine import train
from training.export import export_checkpoint
from training.generation import HFGenerator
from training.interfaces import DirectoryStore
from training.lora import LoraConfig
from training.models import load_model

LINEAGE = {
    "title": "Digit sorter",
    "run": {"id": 7, "status": "succeeded"},
    "experiment": {"id": 3, "name": "sort digits"},
    "pool_versions": [{"family": "digits", "version": 2, "content_hash": "ab12"}],
    "verifier_versions": [{"verifier": "exact", "version": 1}],
    "reports": [{"id": 5, "verdict": "approved", "regressed_families": []}],
    "promotion": {"model": "sorter", "version": 1, "override": None},
    "format": {"chat_template": "{% for m in messages %}\n{{ m.content }}\n{% endfor %}"},
}


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A tiny Qwen2 with a chat template: what an export must carry through."""
    return tiny_models.build("qwen2", tmp_path_factory.mktemp("qwen2"), vocab_size=300)


def checkpoint(base, store_dir, lora: LoraConfig) -> DirectoryStore:
    # A learning rate high enough that two SFT steps move the weights well away from the base.
    config = SFTConfig(
        max_steps=2,
        prompts_per_step=4,
        learning_rate=5e-2,
        sampling=SamplingConfig(max_new_tokens=8),
        model=ModelConfig(path=str(base), lora=lora),
    )
    model, tokenizer = load_model(config.model)
    store = DirectoryStore(store_dir)
    train(
        config,
        sampler=digits.DigitSortSampler(3, 5, seed=3),
        reward_fn=digits.reward_fn,
        store=store,
        model=model,
        tokenizer=tokenizer,
    )
    return store


def prompts(tokenizer) -> list[str]:
    chats = [[{"role": "user", "content": f"sort {d}"}] for d in ("3 1 2", "9 4 7 5", "0 8")]
    return [
        tokenizer.apply_chat_template(c, tokenize=False, add_generation_prompt=True) for c in chats
    ]


def engine_greedy(model_dir) -> list[str]:
    """What the engine generates from the checkpoint: its own loading and generator."""
    model, tokenizer = load_model(ModelConfig(path=str(model_dir)))
    sampling = SamplingConfig(max_new_tokens=10, temperature=0)
    return HFGenerator(model, tokenizer).generate(prompts(tokenizer), sampling).texts


def hf_greedy(model, tokenizer) -> list[str]:
    """Plain transformers: the directory's tokenizer, chat template and generation config."""
    tokenizer.padding_side = "left"
    batch = tokenizer(prompts(tokenizer), return_tensors="pt", padding=True)
    with torch.no_grad():
        out = model.generate(**batch, do_sample=False, max_new_tokens=10)
    return tokenizer.batch_decode(out[:, batch.input_ids.shape[1] :], skip_special_tokens=True)


def front_matter(out) -> dict:
    text = (out / "README.md").read_text()
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def test_a_lora_checkpoint_exports_merged_and_generates_as_the_engine_does(base, tmp_path):
    store = checkpoint(base, tmp_path / "ckpt", LoraConfig(rank=4, alpha=16))
    out = export_checkpoint(store.latest(), tmp_path / "export", lineage=LINEAGE)

    assert (out / "model.safetensors").is_file() and not (out / "adapter_config.json").exists()
    assert not any("lora_" in name for name in load_file(str(out / "model.safetensors")))
    model = AutoModelForCausalLM.from_pretrained(out)
    tokenizer = AutoTokenizer.from_pretrained(out)
    assert tokenizer.chat_template == AutoTokenizer.from_pretrained(base).chat_template
    assert json.loads((out / "generation_config.json").read_text())["eos_token_id"]
    expected = engine_greedy(store.latest() / "model")
    assert hf_greedy(model, tokenizer) == expected
    assert expected != engine_greedy(base)  # the adapter changed what the model says

    meta = front_matter(out)
    assert meta["library_name"] == "transformers" and meta["base_model"] == str(base)
    assert meta["crucible"]["lineage"] == LINEAGE
    assert meta["crucible"]["step"] == 2 and meta["crucible"]["lora"]["rank"] == 4
    body = (out / "README.md").read_text()
    assert "# Digit sorter" in body and "- id: 5, verdict: approved" in body
    assert "- **chat_template**:\n  ```\n  {% for m in messages %}\n" in body  # verbatim


def test_the_adapter_alone_exports_and_loads_on_its_base(base, tmp_path):
    store = checkpoint(base, tmp_path / "ckpt", LoraConfig(rank=4, alpha=16))
    out = export_checkpoint(store.latest(), tmp_path / "export", adapter_only=True)

    assert not (out / "model.safetensors").exists()
    saved = load_file(str(out / "adapter_model.safetensors"))
    assert saved and all("lora_" in name for name in saved)
    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base), str(out))
    tokenizer = AutoTokenizer.from_pretrained(out)
    assert hf_greedy(model, tokenizer) == engine_greedy(store.latest() / "model")
    assert front_matter(out)["library_name"] == "peft"


def test_a_full_checkpoint_exports_its_weights(base, tmp_path):
    store = checkpoint(base, tmp_path / "ckpt", LoraConfig())
    out = export_checkpoint(store.latest(), tmp_path / "export", lineage={"run": {"id": 1}})

    model = AutoModelForCausalLM.from_pretrained(out)
    assert hf_greedy(model, AutoTokenizer.from_pretrained(out)) == engine_greedy(
        store.latest() / "model"
    )
    with pytest.raises(ValueError, match="adapter_only: this checkpoint holds full weights"):
        export_checkpoint(store.latest(), tmp_path / "adapter", adapter_only=True)
    with pytest.raises(ValueError, match="out: .* is not empty"):
        export_checkpoint(store.latest(), out)


def test_an_export_keeps_the_precision_its_base_shipped_in(base, tmp_path):
    # A base released in bf16 (its config says so, as a Hub model's does): training keeps
    # float32 master weights, the export writes them back at the release's precision.
    bf16_base = tmp_path / "bf16-base"
    AutoModelForCausalLM.from_pretrained(base, dtype=torch.bfloat16).save_pretrained(bf16_base)
    AutoTokenizer.from_pretrained(base).save_pretrained(bf16_base)
    assert json.loads((bf16_base / "config.json").read_text())["dtype"] == "bfloat16"
    store = checkpoint(bf16_base, tmp_path / "ckpt", LoraConfig(rank=4, alpha=16))

    auto = export_checkpoint(store.latest(), tmp_path / "auto")
    assert {t.dtype for t in load_file(str(auto / "model.safetensors")).values()} == {
        torch.bfloat16
    }
    wide = export_checkpoint(store.latest(), tmp_path / "wide", dtype="float32")
    assert {t.dtype for t in load_file(str(wide / "model.safetensors")).values()} == {
        torch.float32
    }
    adapter = export_checkpoint(store.latest(), tmp_path / "adapter", adapter_only=True)
    assert {t.dtype for t in load_file(str(adapter / "adapter_model.safetensors")).values()} == {
        torch.bfloat16
    }
    with pytest.raises(ValueError, match="dtype: 'int8' is not one of auto, float32"):
        export_checkpoint(store.latest(), tmp_path / "bad", dtype="int8")

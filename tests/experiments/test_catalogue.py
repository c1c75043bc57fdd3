"""The model catalogue: what a worker lists, how a name becomes a directory, and the built-in
tiny model built once per machine. Pure: no database."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from experiments import catalogue
from experiments.catalogue import TINY_MODEL, UnknownModel
from training import digits, tiny_models
from training.models import build_tiny_model, save_model, train_tokenizer


@pytest.fixture(scope="module")
def tiny_pair():
    tokenizer = train_tokenizer(digits.corpus(200))
    return build_tiny_model(tokenizer, layers=1, width=32, seed=0), tokenizer


def save_hf(tiny_pair, directory: Path) -> Path:
    model, tokenizer = tiny_pair
    save_model(model, tokenizer, directory)
    return directory


def test_it_lists_the_builtin_model_and_hugging_face_directories(tmp_path, tiny_pair):
    save_hf(tiny_pair, tmp_path / "small")
    save_hf(tiny_pair, tmp_path / "org" / "nested")
    (tmp_path / "notes").mkdir()
    (tmp_path / "no-tokenizer").mkdir()
    (tmp_path / "no-tokenizer" / "config.json").write_text("{}")

    entries = catalogue.catalogue(tmp_path)

    assert [e.name for e in entries] == [TINY_MODEL, "org/nested", "small"]
    tiny = entries[0]
    assert tiny.builtin and not tiny.ready and tiny.parameters is None
    assert entries[2].to_dict() == {
        "name": "small",
        "path": "small",
        "builtin": False,
        "parameters": tiny_pair[0].num_parameters(),
        "ready": True,
        "shape": {"hidden": 32, "layers": 1, "vocab": len(tiny_pair[1]), "kv_dim": 32},
        "architecture": "LlamaForCausalLM",
        "dtype": "float32",
        "context_length": tiny_pair[0].config.max_position_embeddings,
        "chat_template": False,
    }


def test_it_describes_a_chat_model_for_the_model_page(tmp_path):
    tiny_models.build("qwen2", tmp_path / "chat", max_position_embeddings=256)
    (entry,) = catalogue.scan(tmp_path)
    described = {key: entry.to_dict()[key] for key in catalogue.DESCRIBED}
    assert described == {
        "architecture": "Qwen2ForCausalLM",
        "dtype": "float32",
        "context_length": 256,
        "chat_template": True,
    }


def test_it_skips_directories_that_are_not_causal_language_models(tmp_path, tiny_pair):
    classifier = save_hf(tiny_pair, tmp_path / "classifier")
    config = json.loads((classifier / "config.json").read_text())
    config["architectures"] = ["BertForSequenceClassification"]
    (classifier / "config.json").write_text(json.dumps(config))

    assert [e.name for e in catalogue.scan(tmp_path)] == []


def test_it_lists_nothing_from_a_missing_folder(tmp_path):
    assert [e.name for e in catalogue.catalogue(tmp_path / "absent")] == [TINY_MODEL]


def test_it_counts_parameters_from_the_weights_or_config(tmp_path, tiny_pair):
    directory = save_hf(tiny_pair, tmp_path / "m")
    expected = tiny_pair[0].num_parameters()
    assert catalogue.parameter_count(directory) == expected
    for weights in directory.glob("*.safetensors"):
        weights.unlink()
    assert catalogue.parameter_count(directory) == expected  # estimated from config.json


def test_it_resolves_a_listed_name_to_its_directory(tmp_path, tiny_pair):
    directory = save_hf(tiny_pair, tmp_path / "org" / "nested")
    assert catalogue.resolve("org/nested", tmp_path) == directory
    assert catalogue.resolve(str(directory), tmp_path) == directory


@pytest.mark.parametrize("name", ["../elsewhere", "/etc", "org/../../x", "", "   ", "."])
def test_it_refuses_a_path_outside_the_models_folder(tmp_path, name):
    with pytest.raises(UnknownModel) as exc:
        catalogue.resolve(name, tmp_path / "models")
    assert isinstance(exc.value, ValueError)
    assert "outside the models folder" in str(exc.value) or "required" in str(exc.value)


def test_it_refuses_an_unknown_name_saying_what_is_there(tmp_path, tiny_pair):
    save_hf(tiny_pair, tmp_path / "small")
    with pytest.raises(UnknownModel, match=r"unknown model 'Qwen2.5-0.5B'.*tiny-digit-sort, small"):
        catalogue.resolve("Qwen2.5-0.5B", tmp_path)


def test_it_builds_the_tiny_model_once_when_first_used_concurrently(tmp_path, monkeypatch):
    builds: list[Path] = []
    real_build = catalogue._build_tiny

    def counted(target: Path, sft_steps: int) -> None:
        builds.append(target)
        time.sleep(0.5)  # long enough for the other caller to reach the lock
        real_build(target, sft_steps)

    monkeypatch.setattr(catalogue, "_build_tiny", counted)
    results: list[Path] = []

    def first_use() -> None:
        results.append(catalogue.resolve(TINY_MODEL, tmp_path, sft_steps=2))

    threads = [threading.Thread(target=first_use) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(builds) == 1
    assert results == [tmp_path / TINY_MODEL] * 2
    assert catalogue.is_model_dir(tmp_path / TINY_MODEL)
    assert not (tmp_path / f"{TINY_MODEL}.partial").exists()
    entry = catalogue.tiny_entry(tmp_path)
    assert entry.ready and entry.parameters and entry.parameters > 0

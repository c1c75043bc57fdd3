"""What the client sends of an adapter directory, and ``crucible upload --adapter`` on a
directory that is not one (the upload itself runs in test_outside_path against a server)."""

from __future__ import annotations

from pathlib import Path

from crucible_client.cli import main
from crucible_client.uploads import describe, is_adapter_dir


def trainer_output(root: Path) -> Path:
    """What TRL's ``save_model`` leaves for a LoRA run: the adapter, the tokenizer, a model
    card and the trainer's pickled arguments."""
    root.mkdir()
    for name in ("adapter_config.json", "adapter_model.safetensors", "tokenizer.json",
                 "tokenizer_config.json", "chat_template.jinja", "README.md",
                 "training_args.bin"):  # fmt: skip
        (root / name).write_text(name)
    (root / "checkpoint-2").mkdir()
    (root / "checkpoint-2" / "optimizer.pt").write_text("pickle")
    return root


def test_an_adapter_goes_without_the_trainers_pickles_or_other_files(tmp_path):
    root = trainer_output(tmp_path / "final")
    assert is_adapter_dir(root)
    sent = [f["path"] for f in describe(root, adapter=True)]
    assert sent == sorted(
        ["adapter_config.json", "adapter_model.safetensors", "chat_template.jinja",
         "tokenizer.json", "tokenizer_config.json"]
    )  # fmt: skip
    everything = {f["path"] for f in describe(root)}
    assert {"training_args.bin", "checkpoint-2/optimizer.pt"} <= everything


def test_upload_adapter_refuses_a_directory_without_an_adapter_config(tmp_path, capsys):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "config.json").write_text("{}")
    assert main(["upload", "7", str(tmp_path / "full"), "--step", "3", "--adapter"]) == 2
    assert "has no adapter_config.json" in capsys.readouterr().err

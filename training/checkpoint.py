"""Checkpoints that hold everything a resume needs.

Layout of a checkpoint directory:
  model/            save_pretrained of the policy and its tokenizer (loadable on its own);
                    with LoRA, the adapter alone (its config names the base directory)
  value_head.pt     PPO only
  optimizer-rank<r>.pt, rng-rank<r>.pt   per process (FSDP shards optimizer state)
  scheduler.pt
  state.json        step, resolved config, sampler/curriculum state, last metrics
"""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path

import numpy as np
import torch

from training.interfaces import CheckpointStore
from training.lora import is_adapted, is_adapter_dir, load_adapter_weights, save_adapter
from training.step import Run


def save(run: Run, store: CheckpointStore, metrics: dict[str, float]) -> Path | None:
    """Write checkpoint `run.step` through the store (main process writes shared files)."""
    acc = run.accelerator
    path = store.new_dir(run.step) if acc.is_main_process else None
    path = Path(acc.gather_for_metrics([str(path)])[0]) if acc.num_processes > 1 else path
    assert path is not None  # the main process made it; the others were told its name
    save_checkpoint(run, path, metrics)
    acc.wait_for_everyone()
    if acc.is_main_process:
        store.saved(run.step, path, metrics)
    return path


def save_checkpoint(run: Run, path: Path, metrics: dict[str, float]) -> None:
    acc, rank = run.accelerator, run.accelerator.process_index
    state_dict = acc.get_state_dict(run.model)  # gathers FSDP shards onto the main process
    if acc.is_main_process:
        if is_adapted(run.policy):
            save_adapter(run.policy, path / "model", state_dict)
        else:
            run.policy.save_pretrained(path / "model", state_dict=state_dict)
        run.tokenizer.save_pretrained(path / "model")
        if run.value_head is not None:
            torch.save(acc.unwrap_model(run.value_head).state_dict(), path / "value_head.pt")
        torch.save(run.scheduler.state_dict(), path / "scheduler.pt")
        state = {
            "step": run.step,
            "tokens_seen": run.tokens_seen,
            "config": run.config.to_dict(),
            "sampler": pickle.dumps(run.sampler.state_dict()).hex(),
            "metrics": metrics,
        }
        (path / "state.json").write_text(json.dumps(state, indent=1, default=str))
    torch.save(run.optimizer.state_dict(), path / f"optimizer-rank{rank}.pt")
    torch.save(rng_state(), path / f"rng-rank{rank}.pt")


def load_checkpoint(run: Run, path: Path) -> None:
    """Restore model, optimizer, scheduler, RNG, sampler state and step from `path`."""
    acc, rank = run.accelerator, run.accelerator.process_index
    adapter = is_adapter_dir(path / "model")
    if adapter != is_adapted(run.policy):
        held, runs = ("a LoRA adapter", "full") if adapter else ("full weights", "LoRA")
        raise ValueError(f"model.lora: checkpoint {path} holds {held}; this run is {runs} training")
    if adapter:
        load_adapter_weights(run.policy, path / "model")
    else:
        load_weights(run.policy, path / "model")
    if run.value_head is not None:
        acc.unwrap_model(run.value_head).load_state_dict(torch.load(path / "value_head.pt"))
    run.optimizer.load_state_dict(torch.load(path / f"optimizer-rank{rank}.pt", weights_only=False))
    run.scheduler.load_state_dict(torch.load(path / "scheduler.pt"))
    state = json.loads((path / "state.json").read_text())
    run.sampler.load_state_dict(pickle.loads(bytes.fromhex(state["sampler"])))
    run.step = state["step"]
    run.tokens_seen = int(state.get("tokens_seen", 0))  # older checkpoints lack it
    set_rng_state(torch.load(path / f"rng-rank{rank}.pt", weights_only=False))


def load_weights(model: torch.nn.Module, directory: Path) -> None:
    """Load safetensors weights (single file or sharded) into an existing module in place."""
    from safetensors.torch import load_file
    from transformers.trainer_utils import load_sharded_checkpoint

    if (directory / "model.safetensors.index.json").exists():
        load_sharded_checkpoint(model, str(directory), strict=False)
        return
    result = model.load_state_dict(load_file(str(directory / "model.safetensors")), strict=False)
    missing = [k for k in result.missing_keys if not k.startswith("lm_head")]  # tied, saved once
    if missing or result.unexpected_keys:
        raise ValueError(
            f"checkpoint mismatch: missing {missing}, unexpected {result.unexpected_keys}"
        )


def rng_state() -> dict:
    state = {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])

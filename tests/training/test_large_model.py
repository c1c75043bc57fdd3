"""Nothing in the engine is tied to the tiny model: a ~100M-parameter model (12 layers x 768,
the tiny model's tokenizer) trains with gradient accumulation, checkpoints and resumes."""

import json

import pytest
import torch
from safetensors import safe_open

from training import digits
from training.config import GRPOConfig, ModelConfig, SamplingConfig
from training.engine import train
from training.interfaces import DirectoryStore, MemorySink

pytestmark = pytest.mark.slow

LAYERS, WIDTH = 12, 768
FP32_BYTES = 4


def config(max_steps: int, seed: int) -> GRPOConfig:
    return GRPOConfig(
        seed=seed,
        max_steps=max_steps,
        prompts_per_step=2,
        group_size=2,
        # 4 rows a step: 2 optimizer steps, each accumulating 2 micro-batches of 1.
        micro_batch_size=1,
        gradient_accumulation_steps=2,
        learning_rate=1e-5,
        # The untrained model's groups are mostly flat; the entropy bonus keeps every row in
        # the backward pass, so each optimizer step has gradients and state to save.
        entropy_coef=0.01,
        sampling=SamplingConfig(max_new_tokens=4),
        model=ModelConfig(tiny_layers=LAYERS, tiny_width=WIDTH),
        checkpoint_every=2,
        cpu_threads=2,
    )


def run(store: DirectoryStore, max_steps: int, seed: int = 0):
    sink = MemorySink()
    result = train(
        config(max_steps, seed),
        sampler=digits.DigitSortSampler(2, 4, seed=0),
        reward_fn=digits.reward_fn,
        sink=sink,
        store=store,
        corpus=digits.corpus(500),
    )
    return result, sink


def adam_steps(checkpoint) -> int:
    state = torch.load(checkpoint / "optimizer-rank0.pt", weights_only=False)["state"]
    return int(next(iter(state.values()))["step"])


def test_it_trains_checkpoints_and_resumes_a_100m_parameter_model(tmp_path):
    store = DirectoryStore(tmp_path / "checkpoints")
    result, sink = run(store, max_steps=2)
    params = sum(p.numel() for p in result.model.parameters())  # tied embeddings once
    assert 100e6 < params < 125e6
    assert [step for step, _ in sink.rows] == [1, 2]

    checkpoint = store.latest()
    assert checkpoint is not None and checkpoint.name == "step-000002"
    weights = (checkpoint / "model" / "model.safetensors").stat().st_size
    assert weights == pytest.approx(params * FP32_BYTES, rel=0.01)
    # AdamW keeps two fp32 moments per parameter.
    moments = (checkpoint / "optimizer-rank0.pt").stat().st_size
    assert moments == pytest.approx(2 * params * FP32_BYTES, rel=0.02)
    assert adam_steps(checkpoint) == 4  # 2 steps x 2 optimizer steps
    with safe_open(str(checkpoint / "model" / "model.safetensors"), "pt") as saved:
        first_layer = saved.get_tensor("model.layers.0.mlp.down_proj.weight")

    # As a new process would: build the model afresh, then resume from the store. Another
    # seed builds another initialisation, so weights that were not loaded would show.
    resumed, resumed_sink = run(store, max_steps=3, seed=1)
    assert [step for step, _ in resumed_sink.rows] == [3]
    final = store.latest()
    assert final is not None and final.name == "step-000003"
    assert adam_steps(final) == 6  # the moments went on from the checkpoint's, not from 0
    state = json.loads((final / "state.json").read_text())
    assert state["tokens_seen"] > json.loads((checkpoint / "state.json").read_text())["tokens_seen"]
    # One more step at a small learning rate: close to the checkpoint, far from any init.
    now = resumed.model.model.layers[0].mlp.down_proj.weight.detach()
    assert (now - first_layer).abs().max() < 1e-3

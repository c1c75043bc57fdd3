"""The GPU check's arithmetic, and its refusal to measure without CUDA."""

import pytest
import torch
import yaml

from training import gpu_check
from training.gpu_check import mfu, peak_bf16_flops


def test_it_knows_the_dense_bf16_peak_of_common_devices(monkeypatch):
    monkeypatch.delenv("GPU_PEAK_FLOPS", raising=False)
    assert peak_bf16_flops("NVIDIA H200") == 989e12
    assert peak_bf16_flops("NVIDIA H100 80GB HBM3") == 989e12
    assert peak_bf16_flops("NVIDIA H100 PCIe") == 756e12
    assert peak_bf16_flops("NVIDIA A100-SXM4-80GB") == 312e12
    assert peak_bf16_flops("Some Future GPU") is None
    monkeypatch.setenv("GPU_PEAK_FLOPS", "1e15")
    assert peak_bf16_flops("Some Future GPU") == 1e15


def test_it_counts_six_flops_per_parameter_and_trained_token():
    # 100M parameters x 1M tokens x 6 in 1 s on a 1.2 PFLOP/s device: half its peak.
    assert mfu(6 * 100e6, 1e6, 1.0, 1.2e15) == pytest.approx(0.5)
    assert mfu(6 * 100e6, 1e6, 1.0, None) is None
    assert mfu(6 * 100e6, 1e6, 0.0, 1e15) is None


def test_it_measures_nothing_without_cuda(tmp_path, capsys):
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is visible: the refusal is for machines without one")
    assert gpu_check.main(["measure", "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().out.startswith("no CUDA device")
    assert not any(tmp_path.iterdir())


def test_it_writes_the_fsdp_config_of_the_chat_lora_check_without_cuda(tmp_path):
    path = tmp_path / "fsdp.yaml"
    assert gpu_check.main(["fsdp-config", "--out", str(path)]) == 0
    written = yaml.safe_load(path.read_text())
    assert written["distributed_type"] == "FSDP" and written["num_processes"] == 1
    assert written["mixed_precision"] == "bf16"
    assert written["fsdp_config"]["fsdp_transformer_layer_cls_to_wrap"] == "Qwen2DecoderLayer"
    assert written["fsdp_config"]["fsdp_use_orig_params"] is True  # LoRA under FSDP


@pytest.mark.parametrize("backend", ["engine", "vllm"])
def test_it_runs_no_chat_lora_check_without_cuda(tmp_path, capsys, backend):
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is visible: the refusal is for machines without one")
    argv = ["chat-lora", "--backend", backend, "--out", str(tmp_path)]
    assert gpu_check.main(argv) == 1
    assert capsys.readouterr().out.startswith("no CUDA device")
    assert not any(tmp_path.iterdir())

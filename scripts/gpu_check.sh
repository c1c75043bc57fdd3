#!/usr/bin/env bash
# The GPU path in one go, estimated at about 10 minutes on one H100/H200-class GPU (never run yet):
#   1. the tests marked `gpu` (bf16 GRPO step, decode loop against HF generate, compiled step,
#      vLLM log-probs against the trainer's when vllm is installed);
#   2. a short bf16 GRPO run of a ~100M-parameter model (12 x 768), printing generation and
#      update tokens/s, peak GPU memory and model FLOP utilisation as one JSON line;
#   3. a 1-process `accelerate launch` run that resumes from step 2's checkpoint;
#   4. GRPO with LoRA on a chat-format Qwen2-architecture model (12 x 768) under FSDP, launched
#      with the accelerate config the engine generates, one JSON line of the same figures;
#   5. the same with vLLM generating (colocated), when vllm is installed.
# Without a usable CUDA device it says why and exits 0. Run from anywhere:
#   scripts/gpu_check.sh            (PYTHON=... picks the interpreter; GPU_CHECK_OUT keeps files)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3

if ! reason=$("$PY" -m training.gpu_check probe); then
    echo "gpu_check: skipped: $reason"
    exit 0
fi
echo "gpu_check: $reason"
OUT=${GPU_CHECK_OUT:-$(mktemp -d -t gpu-check.XXXXXX)}
echo "gpu_check: checkpoints under $OUT"

echo "== 1/5 tests marked gpu"
"$PY" -m pytest -q -rs -m gpu -p no:cacheprovider tests/training/test_gpu.py \
    tests/training/test_vllm_backend.py

echo "== 2/5 bf16 GRPO on a 100M-parameter model"
"$PY" -m training.gpu_check measure --out "$OUT"

echo "== 3/5 accelerate launch, 1 process, resuming from that checkpoint"
"$PY" -m accelerate.commands.launch --num_processes 1 --num_machines 1 \
    --mixed_precision bf16 --dynamo_backend no \
    -m training.gpu_check resume --out "$OUT"

echo "== 4/5 chat-format Qwen2 with LoRA under FSDP (accelerate launch, 1 process)"
"$PY" -m training.gpu_check fsdp-config --out "$OUT/fsdp.yaml"
"$PY" -m accelerate.commands.launch --config_file "$OUT/fsdp.yaml" \
    -m training.gpu_check chat-lora --out "$OUT/chat-lora-fsdp"

echo "== 5/5 the same with vLLM generating"
if "$PY" -c "import vllm" 2>/dev/null; then
    "$PY" -m training.gpu_check chat-lora --backend vllm --out "$OUT/chat-lora-vllm"
else
    echo "gpu_check: skipped: vllm is not installed (pip install '.[vllm]')"
fi
echo "gpu_check: done"

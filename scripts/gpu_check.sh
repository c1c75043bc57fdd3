#!/usr/bin/env bash
# The GPU path in one go, in under 8 minutes on one H100/H200-class GPU:
#   1. the tests marked `gpu` (bf16 GRPO step, decode loop against HF generate, compiled step);
#   2. a short bf16 GRPO run of a ~100M-parameter model (12 x 768), printing generation and
#      update tokens/s, peak GPU memory and model FLOP utilisation as one JSON line;
#   3. a 1-process `accelerate launch` run that resumes from step 2's checkpoint.
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

echo "== 1/3 tests marked gpu"
"$PY" -m pytest -q -rs -m gpu -p no:cacheprovider tests/training/test_gpu.py

echo "== 2/3 bf16 GRPO on a 100M-parameter model"
"$PY" -m training.gpu_check measure --out "$OUT"

echo "== 3/3 accelerate launch, 1 process, resuming from that checkpoint"
"$PY" -m accelerate.commands.launch --num_processes 1 --num_machines 1 \
    --mixed_precision bf16 --dynamo_backend no \
    -m training.gpu_check resume --out "$OUT"
echo "gpu_check: done"

# CUDA GPU worker: consumes the `gpu` queue; multi-GPU runs go through `accelerate launch`.
FROM nvidia/cuda:12.8.1-cudnn-runtime-ubuntu24.04
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 CRUCIBLE_VAR_DIR=/var/lib/crucible \
    DEBIAN_FRONTEND=noninteractive
RUN apt-get update && apt-get install -y --no-install-recommends \
      python3.12 python3.12-venv python3-pip libpq5 util-linux \
    && rm -rf /var/lib/apt/lists/* \
    && python3.12 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /app
COPY pyproject.toml README.md manage.py ./
COPY crucible ./crucible
COPY tasks_app ./tasks_app
COPY experiments ./experiments
COPY serving ./serving
COPY training ./training
# The CUDA build of the pinned torch comes from PyTorch's CUDA index.
RUN pip install --extra-index-url https://download.pytorch.org/whl/cu128 -e . \
    && mkdir -p /var/lib/crucible
CMD ["celery", "-A", "crucible", "worker", "-Q", "gpu", "-c", "1", "-n", "gpu@%h", "-l", "INFO"]

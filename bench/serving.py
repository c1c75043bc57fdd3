"""Serving the tiny model: the platform's generate endpoint against the engine called directly.

The same held-out digit-sort prompts (greedy, up to ``--max-new-tokens`` tokens) from
``--clients`` concurrent clients, each sending its next request when its last is answered:

- ours: ``POST /api/v1/deployments/<slug>/generate`` on the production stack (uvicorn,
  PostgreSQL, a Celery worker on the ``serve`` queue holding the model in a replica), with
  bearer-token auth, routing, the request log and live verification of every answer (each
  request names its task; the verdict is checked to have landed for all of them);
- anchor (the limit): the same clients as threads of one process that holds the model and
  calls the engine's generation (``DecodeGenerator.generate``) on their requests directly,
  each on its own: no HTTP, no auth, no log, no verification.

Both generate on one CPU thread. Prints one JSON line: ``ours``/``anchor`` in requests per
second, ``ratio`` = ours / anchor; extra keys: p99 latency of each side, and the ideal of
the same engine generating every request in batches of ``--clients`` with nothing around
it (``batched_rps``), which no server reaches.

    python bench/serving.py [--requests 400] [--clients 8]

Needs PostgreSQL and Redis (``bench/support/stack.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.support.stack import ROOT, crucible, free_port, stop_on_sigterm, web_server  # noqa: E402

SFT_STEPS = 60


def ours(stack, hosts: list[str], bodies: list[dict], clients: int, slug: str) -> dict:  # type: ignore[no-untyped-def]
    from serving import traffic

    url = [f"http://{host}/api/v1/deployments/{slug}/generate/" for host in hosts]
    traffic.send(url, stack.token, bodies[: 4 * clients], concurrency=clients)  # warm up
    summary = traffic.send(url, stack.token, bodies, concurrency=clients)
    figures = summary.to_dict()
    if figures["answered"] != len(bodies):
        log = "\n".join(line for line in (stack.tmp / "web.log").read_text().splitlines() if "\" 200 " not in line)[-6000:]
        raise SystemExit(f"not every request was answered: {figures}\n{log}")
    return figures


def anchor(model_dir: Path, bodies: list[dict], clients: int, max_new: int) -> dict:
    import torch

    from training.config import ModelConfig, SamplingConfig
    from training.decode import DecodeGenerator
    from training.models import load_model

    torch.set_num_threads(1)
    model, tokenizer = load_model(ModelConfig(path=str(model_dir)))
    generator = DecodeGenerator(model, tokenizer)
    sampling = SamplingConfig(max_new_tokens=max_new, temperature=0.0)
    prompts = [b["prompt"] for b in bodies]
    for p in prompts[: 4 * clients]:
        generator.generate([p], sampling)
    latencies: list[float] = []
    lock = threading.Lock()
    queue = list(prompts)

    def client() -> None:
        while True:
            with lock:
                if not queue:
                    return
                prompt = queue.pop()
            started = time.perf_counter()
            generator.generate([prompt], sampling)
            with lock:
                latencies.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    for i in range(0, len(prompts), clients):
        generator.generate(prompts[i : i + clients], sampling)
    batched = time.perf_counter() - started
    latencies.sort()
    return {
        "requests_per_s": len(prompts) / seconds,
        "latency_p99_ms": latencies[max(0, int(0.99 * len(latencies)) - 1)],
        "batched_rps": len(prompts) / batched,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=16)
    parser.add_argument(
        "--web", type=int, default=2, help="web server processes the clients take turns on"
    )
    args = parser.parse_args()
    stop_on_sigterm()
    with crucible(0) as stack:
        from django.contrib.auth import get_user_model

        from serving.models import Deployment, ReplicaState, ServedRequest
        from serving.services import deployments
        from tests.serving.serving_setup import Served, warm_model

        user = get_user_model().objects.get(username="bench")
        served = Served(user, stack.tmp)
        served.production(served.version(sft_steps=SFT_STEPS, step=40))
        deployment = deployments.create(
            user, served.team, name="Sorter", slug="sorter", registered_model=served.model,
            max_new_tokens=args.max_new_tokens, temperature=0.0, max_batch=args.clients,
            max_queue=4 * args.clients,
        )  # fmt: skip
        tasks = served.held_out(60)
        bodies = [
            {"prompt": tasks[i % len(tasks)][0], "family": "digits",
             "task": tasks[i % len(tasks)][1], "key": f"user-{i % 50}"}
            for i in range(args.requests)
        ]  # fmt: skip
        env = {**os.environ, "SERVING_THREADS": "1"}
        log = open(Path(tempfile.gettempdir()) / "bench-serving-worker.log", "w")  # noqa: SIM115
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "crucible", "worker", "-Q", "serve",
             "-c", "1", "-n", "serve@bench", "-l", "WARNING"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 180
            while not deployment.replicas.filter(state=ReplicaState.READY).exists():
                assert worker.poll() is None, "the serving worker exited"
                assert time.monotonic() < deadline, "the replica never got ready"
                time.sleep(0.3)
            with contextlib.ExitStack() as more:
                hosts = [stack.url]
                for n in range(1, args.web):
                    port = free_port()
                    more.enter_context(web_server(dict(os.environ), port, stack.tmp / f"web{n}.log"))
                    hosts.append(f"127.0.0.1:{port}")
                mine = ours(stack, hosts, bodies, args.clients, deployment.slug)
            time.sleep(2)
            judged = ServedRequest.objects.filter(
                deployment=deployment, passed__isnull=False
            ).count()
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=30)
        limit = anchor(warm_model(stack.tmp / "models", SFT_STEPS), bodies, args.clients,
                       args.max_new_tokens)  # fmt: skip
        assert Deployment.objects.filter(pk=deployment.pk).exists()
    total = args.requests + 4 * args.clients
    print(json.dumps({
        "bench": "serving",
        "ours": round(mine["requests_per_s"], 1),
        "anchor": round(limit["requests_per_s"], 1),
        "unit": "requests/s",
        "ratio": round(mine["requests_per_s"] / limit["requests_per_s"], 3),
        "ours_p99_ms": round(mine["latency_p99_ms"], 1),
        "anchor_p99_ms": round(limit["latency_p99_ms"], 1),
        "batched_rps": round(limit["batched_rps"], 1),
        "verified": f"{judged}/{total}",
        "clients": args.clients,
        "web_processes": args.web,
        "requests": args.requests,
    }))  # fmt: skip


if __name__ == "__main__":
    main()

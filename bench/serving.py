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

Then the OpenAI-compatible endpoint (``POST /v1/chat/completions``, streaming, bearer-token
auth, routing and the request log; no reference travels with such traffic, so nothing is
verified) on a web process of its own, from ``--openai-clients`` concurrent streaming
clients of the official ``openai`` Python client (threads of this process sharing one
``OpenAI`` client, no retries), with the deployment's ``max_batch`` raised to
``--openai-batch`` through its setting (the replica takes it at its next heartbeat):
``openai_rps``, its ratio to ``batched_rps`` and to ``batched_rps_wide`` (the same engine
generating the same requests in batches of ``--openai-batch``), and the p99 time to first
token. Where that run's time goes: the CPU seconds per request of the web process, the
replica's worker and this process's clients (``openai_cpu_ms``), and the replica's running
batch (``openai_batch``: decode steps, rows per step, prefills, from its ``/health``). And
what a request costs the web process in CPU (its user + system time over the requests it
answered, from ``/proc``), through the REST ``generate`` endpoint and through the OpenAI one,
from ``--clients`` clients each: ``web_cpu_ms_generate``, ``web_cpu_ms_openai``.

    python bench/serving.py [--requests 400] [--clients 8] [--openai-clients 64] [--openai-batch 64]

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
        log = "\n".join(
            line
            for line in (stack.tmp / "web.log").read_text().splitlines()
            if '" 200 ' not in line
        )[-6000:]
        raise SystemExit(f"not every request was answered: {figures}\n{log}")
    return figures


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (all its threads) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """``cpu_seconds`` of ``pid`` and its live descendants (a Celery worker's pool child)."""
    total, todo = 0.0, [pid]
    while todo:
        at = todo.pop()
        with contextlib.suppress(OSError):
            total += cpu_seconds(at)
            for task in Path(f"/proc/{at}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
    return total


def own_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def replica_health(replica) -> dict:  # type: ignore[no-untyped-def]
    """The replica's ``/health``, signed as the platform signs."""
    import urllib.request

    from training.serving import SIGNATURE_HEADER, sign

    signed = {SIGNATURE_HEADER: sign(replica.secret, "GET", "/health", b"")}
    request = urllib.request.Request(f"{replica.address}/health", headers=signed)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def openai_streams(host: str, token: str, slug: str, bodies: list[dict], clients: int,
                   max_new: int) -> dict:  # fmt: skip
    """Streaming chat completions from ``clients`` threads of the official ``openai`` client
    (one ``OpenAI`` client, its connection pool kept alive; no retries: a refusal fails)."""
    import openai

    client = openai.OpenAI(base_url=f"http://{host}/v1", api_key=token, max_retries=0,
                           timeout=120)  # fmt: skip
    latencies, first_tokens, failures = [], [], []
    lock = threading.Lock()
    queue = list(enumerate(bodies))

    def one() -> None:
        while True:
            with lock:
                if not queue:
                    return
                i, body = queue.pop()
            started = time.perf_counter()
            first, text = None, []
            try:
                stream = client.chat.completions.create(
                    model=slug, messages=[{"role": "user", "content": body["prompt"]}],
                    max_tokens=max_new, temperature=0, stream=True, user=body["key"],
                )  # fmt: skip
                for chunk in stream:
                    if chunk.choices and chunk.choices[0].delta.content:
                        if first is None:
                            first = time.perf_counter()
                        text.append(chunk.choices[0].delta.content)
            except openai.APIError as failed:
                with lock:
                    failures.append(f"{type(failed).__name__}: {failed}"[:300])
                continue
            with lock:
                latencies.append((time.perf_counter() - started) * 1000)
                first_tokens.append(((first or time.perf_counter()) - started) * 1000)

    started = time.perf_counter()
    threads = [threading.Thread(target=one) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - started
    client.close()
    if failures:
        raise SystemExit(f"{len(failures)} OpenAI requests failed, e.g. {failures[0]}")
    first_tokens.sort()
    return {
        "requests_per_s": len(bodies) / seconds,
        "ttft_p99_ms": first_tokens[max(0, int(0.99 * len(first_tokens)) - 1)],
        "ttft_p50_ms": first_tokens[len(first_tokens) // 2],
    }


def widen(deployment, replica, max_batch: int) -> None:  # type: ignore[no-untyped-def]
    """Set the deployment's ``max_batch``; back once the replica has taken it."""
    type(deployment).objects.filter(pk=deployment.pk).update(max_batch=max_batch)
    deadline = time.monotonic() + 30
    while replica_health(replica)["max_batch"] != max_batch:
        assert time.monotonic() < deadline, "the replica never took the new max_batch"
        time.sleep(0.3)


def web_figures(stack, deployment, replica, worker: int, bodies: list[dict], args) -> dict:  # type: ignore[no-untyped-def]
    """The OpenAI endpoint's throughput and each path's web-process CPU per request, on a
    web process of its own."""
    slug = deployment.slug
    from serving import traffic

    port = free_port()
    host = f"127.0.0.1:{port}"
    with web_server(dict(os.environ), port, stack.tmp / "web-openai.log") as process:
        generate = [f"http://{host}/api/v1/deployments/{slug}/generate/"]
        plain = [{"prompt": b["prompt"], "key": b["key"]} for b in bodies]
        traffic.send(generate, stack.token, plain[: 4 * args.clients], concurrency=args.clients)
        openai_streams(host, stack.token, slug, bodies[: 4 * args.clients], args.clients,
                       args.max_new_tokens)  # fmt: skip
        before = cpu_seconds(process.pid)
        traffic.send(generate, stack.token, plain, concurrency=args.clients)
        between = cpu_seconds(process.pid)
        openai_streams(host, stack.token, slug, bodies, args.clients, args.max_new_tokens)
        after = cpu_seconds(process.pid)
        widen(deployment, replica, args.openai_batch)
        cpu = (cpu_seconds(process.pid), tree_cpu_seconds(worker), own_cpu_seconds())
        health = replica_health(replica)
        wide = openai_streams(host, stack.token, slug, bodies, args.openai_clients,
                              args.max_new_tokens)  # fmt: skip
        spent = (cpu_seconds(process.pid), tree_cpu_seconds(worker), own_cpu_seconds())
        later = replica_health(replica)
    steps = later.get("decode_steps", 0) - health.get("decode_steps", 0)
    wide["cpu_ms"] = {
        name: round((b - a) * 1000 / len(bodies), 2)
        for name, a, b in zip(("web", "replica", "clients"), cpu, spent, strict=True)
    }
    wide["batch"] = {
        "max_batch": later["max_batch"], "decode_steps": steps,
        "rows_per_step": round((later.get("decoded_rows", 0) - health.get("decoded_rows", 0)) / max(1, steps), 1),
        "prefills": later.get("prefills", 0) - health.get("prefills", 0),
    }  # fmt: skip
    return {
        "web_cpu_ms_generate": (between - before) * 1000 / len(bodies),
        "web_cpu_ms_openai": (after - between) * 1000 / len(bodies),
        **{f"openai_{k}": v for k, v in wide.items()},
    }


def anchor(model_dir: Path, bodies: list[dict], clients: int, max_new: int, wide: int) -> dict:
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
    started = time.perf_counter()
    for i in range(0, len(prompts), wide):
        generator.generate(prompts[i : i + wide], sampling)
    batched_wide = time.perf_counter() - started
    latencies.sort()
    return {
        "requests_per_s": len(prompts) / seconds,
        "latency_p99_ms": latencies[max(0, int(0.99 * len(latencies)) - 1)],
        "batched_rps": len(prompts) / batched,
        "batched_rps_wide": len(prompts) / batched_wide,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=16)
    parser.add_argument("--openai-clients", type=int, default=64)
    parser.add_argument(
        "--openai-batch", type=int, default=64,
        help="the deployment's max_batch for the OpenAI run (the ceiling's batch size too)",
    )  # fmt: skip
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
            max_queue=max(4 * args.clients, 2 * args.openai_clients),
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
                    more.enter_context(
                        web_server(dict(os.environ), port, stack.tmp / f"web{n}.log")
                    )
                    hosts.append(f"127.0.0.1:{port}")
                mine = ours(stack, hosts, bodies, args.clients, deployment.slug)
            replica = deployment.replicas.get(state=ReplicaState.READY)
            lean = web_figures(stack, deployment, replica, worker.pid, bodies, args)
            time.sleep(2)
            judged = ServedRequest.objects.filter(
                deployment=deployment, passed__isnull=False
            ).count()
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=30)
        limit = anchor(warm_model(stack.tmp / "models", SFT_STEPS), bodies, args.clients,
                       args.max_new_tokens, args.openai_batch)  # fmt: skip
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
        "openai_rps": round(lean["openai_requests_per_s"], 1),
        "openai_vs_batched": round(lean["openai_requests_per_s"] / limit["batched_rps"], 3),
        "batched_rps_wide": round(limit["batched_rps_wide"], 1),
        "openai_vs_batched_wide": round(lean["openai_requests_per_s"] / limit["batched_rps_wide"], 3),
        "openai_ttft_p99_ms": round(lean["openai_ttft_p99_ms"], 1),
        "openai_ttft_p50_ms": round(lean["openai_ttft_p50_ms"], 1),
        "openai_clients": args.openai_clients,
        "openai_batch": lean["openai_batch"],
        "openai_cpu_ms": lean["openai_cpu_ms"],
        "web_cpu_ms_generate": round(lean["web_cpu_ms_generate"], 2),
        "web_cpu_ms_openai": round(lean["web_cpu_ms_openai"], 2),
        "verified": f"{judged}/{total}",
        "clients": args.clients,
        "web_processes": args.web,
        "requests": args.requests,
    }))  # fmt: skip


if __name__ == "__main__":
    main()

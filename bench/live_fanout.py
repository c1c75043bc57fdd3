"""Live metrics to 200 viewers of one run: websocket push against polling once a second.

The production stack on this machine: a fresh PostgreSQL database, Redis, uvicorn serving
``crucible.asgi`` with channels-redis. A writer records points through the ingest service
(``experiments.services.metrics.record_points``, as the worker's sink does) at a steady rate,
each point stamped with the wall time of its write. The delay of a point is the time a
viewer received it minus that wall time, for every point and every viewer.

- ours: ``--viewers`` websockets on ``/ws/runs/<id>/`` (history, then live frames);
- anchor: ``--pollers`` clients (20 by default) polling ``GET /api/v1/runs/<id>/metrics/
  ?since=<seq>`` once a second, out of step, as MLflow's UI polls its REST API. Fewer than
  the viewers: 200 clients polling once a second overload one web process on a small
  machine, and the anchor is meant to measure polling's own delay, not an overload.

The writer writes ``--steps-per-s`` steps of ``--metrics`` metrics in ``--writes-per-s``
writes a second: by default 10 steps of 20 metrics (200 points a second) in one batch a
second, as the tracking client sends them. A second run of ours writes each step on its own
(10 writes a second): a socket sends at most two frames a second, so it then holds points
back by up to half a second, by design; its figures are the ``per_step_*`` keys.

Prints one JSON line; ``ours``/``anchor`` are p99 delays in ms, ``ratio`` = anchor / ours.

    python bench/live_fanout.py [--viewers 200] [--seconds 20]

Needs PostgreSQL and Redis (see ``bench/support/stack.py``: ``BENCH_DATABASE_URL``,
``REDIS_URL``); its database is created for the run and dropped after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import select
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from support import stack  # noqa: E402

TARGET_P99_MS = 250


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--pollers", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--steps-per-s", type=int, default=10)
    parser.add_argument("--metrics", type=int, default=20)
    parser.add_argument("--writes-per-s", type=int, default=1)
    parser.add_argument("--role", choices=["viewers", "pollers"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--token", help=argparse.SUPPRESS)
    parser.add_argument("--run", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--listen-s", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "viewers":
        print(json.dumps(asyncio.run(view(args))), flush=True)
    elif args.role == "pollers":
        print(json.dumps(poll(args)), flush=True)
    else:
        stack.stop_on_sigterm()
        bench(args)


# --- the orchestrator ---------------------------------------------------------------------------


def bench(args: argparse.Namespace) -> None:
    with stack.crucible(n_runs=3) as crucible:
        url, token, runs = crucible.url, crucible.token, crucible.runs
        batched = scenario(args, "viewers", url, token, runs[0], args.writes_per_s)
        per_step = scenario(args, "viewers", url, token, runs[1], args.steps_per_s)
        anchor = scenario(
            args, "pollers", url, token, runs[2], args.writes_per_s, clients=args.pollers
        )
    report(args, batched, per_step, anchor)


def report(args: argparse.Namespace, ours: dict, per_step: dict, anchor: dict) -> None:
    print(
        json.dumps(
            {
                "bench": "live_fanout",
                "ours": ours["p99_ms"],
                "anchor": anchor["p99_ms"],
                "unit": "ms p99 delay, write to receipt",
                "ratio": round(anchor["p99_ms"] / ours["p99_ms"], 2),
                "target_p99_ms": TARGET_P99_MS,
                "p50_ms_ours": ours["p50_ms"],
                "p50_ms_anchor": anchor["p50_ms"],
                "max_ms_ours": ours["max_ms"],
                "viewers": args.viewers,
                "pollers": args.pollers,
                "points_per_s": args.steps_per_s * args.metrics,
                "writes_per_s": args.writes_per_s,
                "delivered_ours": ours["delivered"],
                "delivered_anchor": anchor["delivered"],
                "failed_polls_anchor": anchor["errors"],
                "gaps_or_repeats_ours": ours["gaps"],
                "frames_per_s_per_viewer": ours["frames_per_s"],
                "per_step_writes_per_s": args.steps_per_s,
                "per_step_p50_ms": per_step["p50_ms"],
                "per_step_p99_ms": per_step["p99_ms"],
                "per_step_delivered": per_step["delivered"],
                "per_step_frames_per_s_per_viewer": per_step["frames_per_s"],
                "seconds": args.seconds,
            }
        )
    )


def scenario(
    args: argparse.Namespace,
    role: str,
    url: str,
    token: str,
    run_id: int,
    writes_per_s: int,
    clients: int | None = None,
) -> dict:
    """Start the clients, wait until they are all in, write for ``args.seconds``, collect."""
    listen_s = args.seconds + 2.0
    clients = clients or args.viewers
    command = [sys.executable, __file__, "--role", role, "--url", url, "--token", token]
    command += ["--run", str(run_id), "--viewers", str(clients), "--listen-s", str(listen_s)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 120)
        line = process.stdout.readline().strip() if ready else ""
        if line != "ready":
            raise SystemExit(f"the {role} did not start in time: {line!r}")
        written = write(run_id, args, writes_per_s)
        out, _ = process.communicate(timeout=listen_s + 60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    result = json.loads(out.strip().splitlines()[-1])
    result["delivered"] = round(result.pop("received") / (written * clients), 4)
    return result


def write(run_id: int, args: argparse.Namespace, writes_per_s: int) -> int:
    """Record ``args.steps_per_s`` steps a second for ``args.seconds``; points written."""
    from experiments.models import Run
    from experiments.services.metrics import Point, record_points

    run = Run.objects.get(pk=run_id)
    steps_per_write = max(1, args.steps_per_s // writes_per_s)
    start, step, written, k = time.monotonic(), 0, 0, 0
    while (due := start + k / writes_per_s) < start + args.seconds:
        time.sleep(max(0.0, due - time.monotonic()))
        now = time.time()
        points = [
            Point(f"metric/{m}", s, (s * 31 + m) % 97 / 97, now, 1000 * s)
            for s in range(step, step + steps_per_write)
            for m in range(args.metrics)
        ]
        written += record_points(run, points)
        step, k = step + steps_per_write, k + 1
    return written


def summary(delays_s: list[float]) -> dict:
    if not delays_s:
        return {"p50_ms": None, "p99_ms": None, "max_ms": None}
    cuts = statistics.quantiles(delays_s, n=100, method="inclusive")
    return {
        "p50_ms": round(cuts[49] * 1000, 1),
        "p99_ms": round(cuts[98] * 1000, 1),
        "max_ms": round(max(delays_s) * 1000, 1),
    }


# --- ours: websocket viewers ----------------------------------------------------------------------


async def view(args: argparse.Namespace) -> dict:
    from websockets.asyncio.client import connect

    uri = f"ws://{args.url}/ws/runs/{args.run}/?token={args.token}"
    delays: list[float] = []
    state = {"gaps": 0, "frames": 0, "received": 0}
    sockets = []
    for first in range(0, args.viewers, 20):  # in waves, as a page load would not all at once
        wave = [
            connect(uri, origin=f"http://{args.url}", max_size=None, open_timeout=60)
            for _ in range(first, min(first + 20, args.viewers))
        ]
        sockets += await asyncio.gather(*wave)
    seqs = []
    for ws in sockets:
        assert json.loads(await ws.recv())["type"] == "hello"
        seqs.append(json.loads(await ws.recv())["seq"])  # the history
    print("ready", flush=True)
    started = time.time()
    await asyncio.gather(
        *(
            receive(ws, seq, started, args.listen_s, delays, state)
            for ws, seq in zip(sockets, seqs, strict=True)
        )
    )
    await asyncio.gather(*(ws.close() for ws in sockets))
    return {
        **summary(delays),
        "gaps": state["gaps"],
        "errors": 0,
        "received": state["received"],
        "frames_per_s": round(state["frames"] / args.viewers / args.listen_s, 2),
    }


async def receive(ws, seq: int, started: float, listen_s: float, delays: list, state: dict) -> None:  # type: ignore[no-untyped-def]
    seen: set[tuple[str, int]] = set()
    deadline = started + listen_s
    while (left := deadline - time.time()) > 0:
        try:
            raw = await asyncio.wait_for(ws.recv(), left)
        except TimeoutError:
            break
        now = time.time()
        frame = json.loads(raw)
        if frame["type"] != "points":
            continue
        state["frames"] += 1
        if frame["prev"] != seq:
            state["gaps"] += 1
        seq = frame["seq"]
        for key, cols in frame["points"].items():
            for step, wall_time in zip(cols["step"], cols["wall_time"], strict=True):
                if (key, step) not in seen:
                    seen.add((key, step))
                    delays.append(now - wall_time)
    state["received"] += len(seen)


# --- the anchor: polling once a second --------------------------------------------------------------


def poll(args: argparse.Namespace) -> dict:
    import http.client

    host, port = args.url.split(":")
    delays: list[float] = []
    counts = {"received": 0, "errors": 0}
    lock = threading.Lock()
    started = time.time()

    def poller(index: int) -> None:
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        headers = {"Authorization": f"Bearer {args.token}"}
        seq, seen, mine, errors = 0, set(), [], 0
        phase = index / args.viewers  # clients poll out of step, as independent browsers do
        tick = 0
        while (due := started + phase + tick) < started + args.listen_s:
            time.sleep(max(0.0, due - time.time()))
            tick += 1
            body = get(connection, headers, args.run, seq)
            now = time.time()
            if body is None:
                errors += 1
                connection.close()
                continue
            seq = body["seq"]
            for key, cols in body["points"].items():
                for step, wall_time in zip(cols["step"], cols["wall_time"], strict=True):
                    if (key, step) not in seen:
                        seen.add((key, step))
                        mine.append(now - wall_time)
        with lock:
            delays.extend(mine)
            counts["received"] += len(seen)
            counts["errors"] += errors

    threads = [threading.Thread(target=poller, args=(i,)) for i in range(args.viewers)]
    for thread in threads:
        thread.start()
    print("ready", flush=True)
    for thread in threads:
        thread.join()
    return {**summary(delays), "gaps": 0, "frames_per_s": 1.0, **counts}


def get(connection, headers: dict, run_id: int, since: int) -> dict | None:  # type: ignore[no-untyped-def]
    """One poll; None when it failed (the poller counts it and polls again next second)."""
    path = f"/api/v1/runs/{run_id}/metrics/?since={since}&max_points=0"
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
    except OSError:
        return None
    return json.loads(body) if response.status == 200 else None


if __name__ == "__main__":
    main()

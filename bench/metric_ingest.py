"""Metric points written per second over HTTP into PostgreSQL: our ingest endpoint against
MLflow's ``log_batch`` to a local MLflow tracking server on the same PostgreSQL.

Ours: uvicorn serving ``crucible.asgi`` (one process) and ``POST /api/v1/runs/<id>/metrics/``,
fed by our tracking client (``crucible_client.tracking.CrucibleClient``). Anchor: ``mlflow server``
(one worker) with ``--backend-store-uri postgresql+psycopg://...`` in a database of its own
on the same server, fed by ``MlflowClient.log_batch``. The same points on both sides: batches
of ``--batch-size`` (1,000, MLflow's limit per request) over ``--keys`` metric keys, steps
in order, one client sending one batch at a time, after one untimed warm-up batch. Both
sides' rows are counted in the database afterwards.

Prints one JSON line; ``ratio`` = our points/s over MLflow's.

    python bench/metric_ingest.py [--batches 40] [--batch-size 1000] [--keys 50]

Needs ``pip install -e '.[bench]'`` (mlflow), PostgreSQL and Redis (``bench/support/stack.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from support import stack  # noqa: E402

TARGET_RATIO = 2.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--keys", type=int, default=50)
    args = parser.parse_args()
    if args.batch_size % args.keys:
        parser.error("--batch-size must be a multiple of --keys (whole steps per batch)")
    stack.stop_on_sigterm()
    with stack.crucible(n_runs=1) as crucible:
        ours = run_ours(crucible, args)
        anchor = run_mlflow(crucible.tmp, args)
    points = args.batches * args.batch_size
    print(
        json.dumps(
            {
                "bench": "metric_ingest",
                "ours": round(points / ours["seconds"]),
                "anchor": round(points / anchor["seconds"]),
                "unit": "points/s",
                "ratio": round(anchor["seconds"] / ours["seconds"], 2),
                "target_ratio": TARGET_RATIO,
                "points": points,
                "batch_size": args.batch_size,
                "keys": args.keys,
                "rows_ours": ours["rows"],
                "rows_anchor": anchor["rows"],
                "seconds_ours": round(ours["seconds"], 2),
                "seconds_anchor": round(anchor["seconds"], 2),
            }
        )
    )


def batches(args: argparse.Namespace, *, skip: int = 0) -> Iterator[list[tuple[str, int, float]]]:
    """``args.batches`` batches of (key, step, value), after ``skip`` batches (the warm-up)."""
    steps_per_batch = args.batch_size // args.keys
    for b in range(skip, skip + args.batches):
        yield [
            (f"metric/{k}", step, ((step * 7919 + k) % 1000) / 1000)
            for step in range(b * steps_per_batch, (b + 1) * steps_per_batch)
            for k in range(args.keys)
        ]


def warm_up(args: argparse.Namespace) -> list[tuple[str, int, float]]:
    steps = range(10_000_000, 10_000_000 + args.batch_size // args.keys)
    return [(f"metric/{k}", s, 0.5) for s in steps for k in range(args.keys)]


# --- ours ---------------------------------------------------------------------------------------


def run_ours(crucible: stack.Stack, args: argparse.Namespace) -> dict:
    from crucible_client.tracking import CrucibleClient

    from experiments.models import MetricPoint

    run_id = crucible.runs[0]
    client = CrucibleClient(
        f"http://{crucible.url}", crucible.token, run_id, batch_size=args.batch_size
    )
    send(client, warm_up(args))
    start = time.perf_counter()
    for batch in batches(args):
        send(client, batch)
    seconds = time.perf_counter() - start
    rows = MetricPoint.objects.filter(run_id=run_id).count() - args.batch_size
    return {"seconds": seconds, "rows": rows}


def send(client, batch: list[tuple[str, int, float]]) -> None:  # type: ignore[no-untyped-def]
    now = time.time()
    by_step: dict[int, dict[str, float]] = {}
    for key, step, value in batch:
        by_step.setdefault(step, {})[key] = value
    for step, metrics in by_step.items():
        client.log(step, metrics, wall_time=now)
    client.flush()


# --- the anchor: MLflow ---------------------------------------------------------------------------


def run_mlflow(tmp: Path, args: argparse.Namespace) -> dict:
    name = f"mlflow_bench_{os.getpid()}"
    with stack.database(name) as database_url:
        backend = database_url.replace("postgres://", "postgresql+psycopg://", 1)
        port = stack.free_port()
        command = [
            *(sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1"),
            *("--port", str(port), "--workers", "1", "--backend-store-uri", backend),
            *("--default-artifact-root", str(tmp / "mlflow-artifacts")),
        ]
        env = {**os.environ, "MLFLOW_ENABLE_TELEMETRY": "false", "DO_NOT_TRACK": "true"}
        health = f"http://127.0.0.1:{port}/health"
        with stack.server(command, env, health, tmp / "mlflow.log", cwd=tmp):
            seconds = log_to_mlflow(f"http://127.0.0.1:{port}", args)
        rows = count_rows(database_url) - args.batch_size
    return {"seconds": seconds, "rows": rows}


def log_to_mlflow(tracking_uri: str, args: argparse.Namespace) -> float:
    from mlflow.entities import Metric
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=tracking_uri)
    experiment = client.create_experiment("bench")
    run_id = client.create_run(experiment).info.run_id

    def log(batch: list[tuple[str, int, float]]) -> None:
        now_ms = int(time.time() * 1000)
        client.log_batch(run_id, metrics=[Metric(k, v, now_ms, s) for k, s, v in batch])

    log(warm_up(args))
    start = time.perf_counter()
    for batch in batches(args):
        log(batch)
    return time.perf_counter() - start


def count_rows(database_url: str) -> int:
    import psycopg

    with psycopg.connect(database_url) as connection:
        return connection.execute("SELECT count(*) FROM metrics").fetchone()[0]


if __name__ == "__main__":
    main()

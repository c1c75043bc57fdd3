"""Read latency of the REST API under load, against the same reads issued through the ORM
in-process: the limit the API's own work (HTTP, middleware, authentication, routing,
throttling, rendering) is measured against.

Data: ``--runs`` runs (10,000) in one team, spread over experiments of 100 runs, and
``--points`` metric points (1,000,000) spread evenly over them (4 keys), written with COPY
into a fresh PostgreSQL database, then analysed.

Ours: ``python -m crucible.serve`` (``--workers`` processes) on that database; ``--clients``
threads (50), each with one keep-alive connection and the team owner's bearer token, send a
mix of reads one after another for ``--seconds``: a page of 50 runs (any page), the runs of
one experiment, one run, one run's metrics (every key, downsampled as the charts ask), and a
page of experiments with their run counts.

The limit: the same reads by as many threads in this process, each with its own database
connection: the same querysets (team scoping, ordering, page of 50 with its count), the same
serializers and service calls, rendered to JSON; no HTTP. Both sides pick the same sequence
of requests (seeded) after an untimed warm-up.

Prints one JSON line; ``ratio`` = the limit's p99 over ours (> 1 would mean the API beats
the ORM alone; the target is ours p99 < 50 ms and ratio >= 1/3, i.e. at most 3x the limit).

    python bench/api_load.py [--runs 10000] [--points 1000000] [--clients 50] [--seconds 30]
    python bench/api_load.py --quick      # a smoke run: 500 runs, 50,000 points, 5 s

Needs PostgreSQL and Redis (``bench/support/stack.py``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from support import stack  # noqa: E402

TARGET_P99_MS = 50.0
TARGET_RATIO = 1 / 3
PAGE_SIZE = 50
RUNS_PER_EXPERIMENT = 100
KEYS = ("reward/mean", "loss", "kl", "response/length")
KINDS = ("runs_page", "experiment_runs", "run", "run_metrics", "experiments_page")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument(
        "--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "1")),
        help="web server processes (default: WEB_CONCURRENCY or 1)",
    )  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="500 runs, 50,000 points, 5 s")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.points, args.seconds = 500, 50_000, 5.0
    if args.runs < 1 or args.points < 0 or args.clients < 1 or args.seconds <= 0:
        parser.error("--runs and --clients must be positive, --points >= 0, --seconds > 0")
    stack.stop_on_sigterm()
    os.environ["WEB_CONCURRENCY"] = str(args.workers)  # read by crucible.serve
    with stack.crucible(n_runs=1) as crucible:
        started = time.perf_counter()
        world = seed(crucible, args)
        seed_s = time.perf_counter() - started
        requests = Requests(world)
        ours = load(lambda: HttpReader(crucible), requests, args)
        limit = load(lambda: OrmReader(world), requests, args)
    print(
        json.dumps(
            {
                "bench": "api_load",
                "ours": ours.p99_ms,
                "anchor": limit.p99_ms,
                "unit": "ms p99",
                "ratio": round(limit.p99_ms / ours.p99_ms, 3),
                "target_p99_ms": TARGET_P99_MS,
                "target_ratio": round(TARGET_RATIO, 3),
                "target_met": {
                    "p99_under_50ms": ours.p99_ms < TARGET_P99_MS,
                    "within_3x_of_limit": limit.p99_ms / ours.p99_ms >= TARGET_RATIO,
                },
                "p50_ms_ours": ours.p50_ms,
                "p50_ms_anchor": limit.p50_ms,
                "requests_per_s_ours": ours.throughput,
                "requests_per_s_anchor": limit.throughput,
                "requests_ours": ours.count,
                "requests_anchor": limit.count,
                "errors_ours": ours.errors,
                "p99_ms_by_kind_ours": ours.by_kind,
                "p99_ms_by_kind_anchor": limit.by_kind,
                "runs": args.runs,
                "points": args.points,
                "clients": args.clients,
                "seconds": args.seconds,
                "workers": args.workers,
                "seed_s": round(seed_s, 1),
            }
        )
    )


# --- the data ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class World:
    team_id: int
    user_id: int
    runs: list[int]
    experiments: list[int]


def seed(crucible: stack.Stack, args: argparse.Namespace) -> World:
    """``args.runs`` runs (the stack's first included) and ``args.points`` points over them."""
    from django.db import connection

    from experiments import config as cfg
    from experiments.catalogue import TINY_MODEL
    from experiments.models import Experiment, MetricPoint, Run, RunState

    first = Run.objects.select_related("team").get(pk=crucible.runs[0])
    team, user_id = first.team, first.team.memberships.get().user_id
    summary = {key: 0.5 for key in KEYS}
    # A configuration as the experiment pages show it; its versions need not exist to be read.
    config = cfg.canonical(
        {"curriculum": {"families": [{"pool_version": 1, "verifier_version": 1}]},
         "model": TINY_MODEL, "algorithm": "grpo", "hyperparameters": {"max_steps": 1000}}
    )  # fmt: skip
    config_hash = cfg.config_hash(config)
    Run.objects.filter(pk=first.pk).update(created_by_id=user_id, summary=summary)
    Experiment.objects.filter(pk=first.experiment_id).update(
        config=config, config_hash=config_hash, created_by_id=user_id
    )
    experiments, runs = [first.experiment_id], [first.pk]
    remaining = args.runs - 1
    while remaining > 0:
        experiment = Experiment.objects.create(
            team=team, name=f"bench-{len(experiments)}", config=config, config_hash=config_hash,
            created_by_id=user_id,
        )  # fmt: skip
        experiments.append(experiment.pk)
        size = min(RUNS_PER_EXPERIMENT, remaining)
        states = (RunState.RUNNING, RunState.SUCCEEDED, RunState.FAILED)
        made = Run.objects.bulk_create(
            Run(
                experiment=experiment, team=team, number=n, state=states[n % 3],
                created_by_id=user_id, summary=summary, step=n, max_steps=1000,
            )  # fmt: skip
            for n in range(1, size + 1)
        )
        runs.extend(run.pk for run in made)
        remaining -= size
        progress("runs", len(runs), args.runs, finished=remaining == 0)
    table = MetricPoint._meta.db_table
    given = ("run_id", "key", "step", "value", "wall_time")
    # Columns the seed does not set get the model's default, as bulk_create would give them.
    defaults = [
        f for f in MetricPoint._meta.concrete_fields if not f.primary_key and f.attname not in given
    ]
    columns = ", ".join([*given, *(f.column for f in defaults)])
    rest = tuple(f.get_db_prep_save(f.get_default(), connection) for f in defaults)
    steps = max(1, args.points // (len(runs) * len(KEYS)))
    written = 0
    copying = f"COPY {table} ({columns}) FROM STDIN"
    with connection.cursor() as cursor, cursor.copy(copying) as copy:
        for run in runs:
            for key in KEYS:
                for step in range(steps):
                    if written == args.points:
                        break
                    value = (step * 7919 + run) % 1000 / 1000
                    copy.write_row((run, key, step, value, 1e9 + step, *rest))
                    written += 1
            if run % 500 == 0:
                progress("points", written, args.points)
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {table}")
        cursor.execute(f"ANALYZE {Run._meta.db_table}")
    progress("points", written, args.points, finished=True)
    return World(team.pk, user_id, runs, experiments)


def progress(what: str, done: int, total: int, *, finished: bool = False) -> None:
    end = "\n" if finished else "\r"
    print(f"seeding {what}: {done:,}/{total:,}", end=end, file=sys.stderr, flush=True)


# --- what the clients ask ---------------------------------------------------------------------


class Requests:
    """The request mix: one (kind, parameter) after another, from a seeded generator."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.pages = max(1, -(-len(world.runs) // PAGE_SIZE))
        self.experiment_pages = max(1, -(-len(world.experiments) // PAGE_SIZE))

    def stream(self, seed: int) -> Callable[[], tuple[str, int]]:
        rng = random.Random(seed)

        def next_request() -> tuple[str, int]:
            kind = rng.choice(KINDS)
            if kind == "runs_page":
                return kind, rng.randint(1, self.pages)
            if kind == "experiments_page":
                return kind, rng.randint(1, self.experiment_pages)
            if kind == "experiment_runs":
                return kind, rng.choice(self.world.experiments)
            return kind, rng.choice(self.world.runs)

        return next_request


class HttpReader:
    """One client of the web server: a keep-alive connection and the owner's token."""

    def __init__(self, crucible: stack.Stack) -> None:
        host, port = crucible.url.split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=60)
        self.headers = {"Authorization": f"Bearer {crucible.token}", "Accept": "application/json"}

    def read(self, kind: str, value: int) -> bool:
        path = {
            "runs_page": f"/api/v1/runs/?page={value}",
            "experiment_runs": f"/api/v1/runs/?experiment={value}",
            "run": f"/api/v1/runs/{value}/",
            "run_metrics": f"/api/v1/runs/{value}/metrics/",
            "experiments_page": f"/api/v1/experiments/?page={value}",
        }[kind]
        try:
            self.connection.request("GET", path, headers=self.headers)
            response = self.connection.getresponse()
            response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()  # it reconnects on the next request
            return False
        return response.status == 200

    def close(self) -> None:
        self.connection.close()


class OrmReader:
    """The same reads through the ORM and the same serializers, in this process."""

    def __init__(self, world: World) -> None:
        from django.contrib.auth import get_user_model

        from crucible.accounts.services import teams_visible_to

        self.user = get_user_model().objects.get(pk=world.user_id)
        self.teams_visible_to = teams_visible_to

    def runs(self):  # type: ignore[no-untyped-def]
        from experiments.models import Run

        rows = Run.objects.select_related("team", "experiment", "created_by")
        return rows.filter(team__in=self.teams_visible_to(self.user, None))

    def experiments(self):  # type: ignore[no-untyped-def]
        from django.db.models import Count

        from experiments.models import Experiment

        rows = Experiment.objects.select_related("team", "created_by")
        rows = rows.annotate(run_count=Count("runs")).order_by("-created_at", "-id")
        return rows.filter(team__in=self.teams_visible_to(self.user, None))

    def read(self, kind: str, value: int) -> bool:
        from django.core.paginator import Paginator

        from experiments.api.experiments import ExperimentSerializer
        from experiments.api.metrics import MetricsQuerySerializer, series_body
        from experiments.api.runs import RunListSerializer, RunSerializer
        from experiments.services import metric_queries

        if kind == "experiments_page":
            page = Paginator(self.experiments(), PAGE_SIZE).page(value)
            body = {
                "count": page.paginator.count,
                "results": ExperimentSerializer(page, many=True).data,
            }
        elif kind in ("runs_page", "experiment_runs"):
            rows = self.runs()
            if kind == "experiment_runs":
                rows, value = rows.filter(experiment=value), 1
            page = Paginator(rows, PAGE_SIZE).page(value)
            body = {"count": page.paginator.count, "results": RunListSerializer(page, many=True).data}
        elif kind == "run":
            body = RunSerializer(self.runs().get(pk=value)).data
        else:
            run = self.runs().get(pk=value)
            query = MetricsQuerySerializer(data={})
            query.is_valid(raise_exception=True)
            max_points = query.validated_data["max_points"]
            snapshot = metric_queries.read_series(run.pk, keys=None, max_points=max_points)
            body = {
                "run": run.pk, "state": run.state, "seq": snapshot.seq,
                "keys": metric_queries.keys_of(run.pk),
                "points": {k: series_body(s, counted=True) for k, s in snapshot.series.items()},
            }  # fmt: skip
        json.dumps(body, default=str)
        return True

    def close(self) -> None:
        from django.db import connection

        connection.close()


# --- the load ---------------------------------------------------------------------------------


@dataclass
class Result:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    errors: int = 0
    seconds: float = 0.0

    @property
    def all(self) -> list[float]:
        return sorted(x for values in self.latencies.values() for x in values)

    @property
    def count(self) -> int:
        return len(self.all)

    @property
    def p50_ms(self) -> float:
        return percentile(self.all, 0.50)

    @property
    def p99_ms(self) -> float:
        return percentile(self.all, 0.99)

    @property
    def throughput(self) -> float:
        return round(self.count / self.seconds, 1)

    @property
    def by_kind(self) -> dict[str, float]:
        return {kind: percentile(sorted(v), 0.99) for kind, v in self.latencies.items() if v}


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, round(q * (len(sorted_values) - 1)))
    return round(sorted_values[index] * 1000, 2)


def load(make_reader: Callable[[], object], requests: Requests, args: argparse.Namespace) -> Result:
    """``args.clients`` threads reading for ``args.seconds`` after a shared warm-up."""
    result = Result()
    lock = threading.Lock()
    ready = threading.Barrier(args.clients + 1)
    stop = threading.Event()

    def client(index: int) -> None:
        reader = make_reader()
        next_request = requests.stream(seed=index)
        try:
            for _ in range(5):  # warm-up: connections opened, caches filled
                reader.read(*next_request())  # type: ignore[attr-defined]
            ready.wait()
            mine: list[tuple[str, float]] = []
            errors = 0
            while not stop.is_set():
                kind, value = next_request()
                start = time.perf_counter()
                ok = reader.read(kind, value)  # type: ignore[attr-defined]
                elapsed = time.perf_counter() - start
                if ok:
                    mine.append((kind, elapsed))
                else:
                    errors += 1
            with lock:
                for kind, elapsed in mine:
                    result.latencies[kind].append(elapsed)
                result.errors += errors
        finally:
            reader.close()  # type: ignore[attr-defined]

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(args.clients)]
    for thread in threads:
        thread.start()
    ready.wait()
    started = time.perf_counter()
    time.sleep(args.seconds)
    stop.set()
    for thread in threads:
        thread.join()
    result.seconds = time.perf_counter() - started
    return result


if __name__ == "__main__":
    main()

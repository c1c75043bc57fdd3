"""The client: one object per collection of the REST API, typed by the schema's bodies.

    from crucible_client import Crucible

    crucible = Crucible("http://127.0.0.1:8000", token)
    experiment = crucible.experiments.create(body)
    run = crucible.experiments.launch(experiment["id"])
    run = crucible.runs.wait(run["id"])          # over the run's socket, no polling

Every refusal raises ``ApiError`` with the API's JSON errors (``field``, ``code``,
``message``); ``Unreachable`` when nothing answered.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

from crucible_client import schema_types as t
from crucible_client.http import API, Http
from crucible_client.logger import RunLogger
from crucible_client.stream import RunStream
from crucible_client.uploads import upload_checkpoint

Row = TypeVar("Row")


class Collection(Generic[Row]):
    """``/api/v1/<name>/``: list (every page), get, create, update (PATCH), delete."""

    def __init__(self, http: Http, name: str) -> None:
        self.http = http
        self.path = f"{API}/{name}/"

    def list(self, **filters: Any) -> list[Row]:
        return list(self.iter(**filters))

    def iter(self, **filters: Any) -> Iterator[Row]:
        return cast(Iterator[Row], self.http.pages(self.path, **filters))

    def get(self, key: int | str) -> Row:
        return cast(Row, self.http.get(f"{self.path}{key}/"))

    def create(self, body: Any) -> Row:
        return cast(Row, self.http.post(self.path, body))

    def update(self, key: int | str, body: Any) -> Row:
        return cast(Row, self.http.json("PATCH", f"{self.path}{key}/", json=body))

    def delete(self, key: int | str) -> None:
        self.http.json("DELETE", f"{self.path}{key}/")

    def action(self, key: int | str, name: str, body: Any = None) -> Any:
        return self.http.post(f"{self.path}{key}/{name}/", body)


class Families(Collection[t.Family]):
    def versions(self, family_id: int) -> list[t.PoolVersion]:
        return cast(list[t.PoolVersion], self.http.get(f"{self.path}{family_id}/versions/"))

    def generate(self, family_id: int, body: t.GenerateRequest) -> t.PoolVersion:
        return cast(t.PoolVersion, self.action(family_id, "versions/generate", body))


class Verifiers(Collection[t.Verifier]):
    def new_version(self, verifier_id: int, body: t.VersionCreateRequest) -> t.VerifierVersion:
        return cast(t.VerifierVersion, self.action(verifier_id, "versions", body))


class Experiments(Collection[t.Experiment]):
    def launch(self, experiment_id: int) -> t.Run:
        return cast(t.Run, self.action(experiment_id, "launch"))

    def clone(self, experiment_id: int, body: t.CloneRequest) -> t.Experiment:
        return cast(t.Experiment, self.action(experiment_id, "clone", body))

    def diff(self, experiment_id: int, other: int) -> t.Diff:
        return cast(t.Diff, self.http.get(f"{self.path}{experiment_id}/diff/", other=other))


class Runs(Collection[t.RunList]):
    def init(self, team: str, **fields: Any) -> t.Run:
        """Create an outside run (``name``, ``params``, ``tags``, ``notes``, ``base_model``,
        ``experiment``, ``max_steps``; see ``OutsideRunRequest``), or with ``resume=<id>``
        continue one. Log into it with ``logger(run["id"])`` and end it with ``finish``."""
        return cast(t.Run, self.http.post(self.path, {"team": team, **fields}))

    def finish(self, run_id: int, status: str = "finished", reason: str | None = None) -> t.Run:
        """End an outside run: ``finished`` (succeeded), ``failed`` or ``killed``."""
        body = {"status": status, **({"reason": reason} if reason else {})}
        return cast(t.Run, self.action(run_id, "finish", body))

    def search(self, filter: str, **filters: Any) -> list[t.RunList]:
        """Runs matching ``filter``, as MLflow's search_runs: ``metrics.reward/mean > 0.5 and
        params.lr = 0.001 and tags.stage = sweep`` (with ``team``, ``state``... too)."""
        return self.list(filter=filter, **filters)

    def upload_checkpoint(self, run_id: int, directory: Path | str, step: int, **options: Any) -> t.Checkpoint:
        """Upload a Hugging Face model directory as the run's checkpoint at ``step``
        (chunked; uploading the same directory again resumes). A LoRA adapter directory
        (``adapter_config.json``) goes as an adapter on its catalogue base (``adapter=``)."""
        return upload_checkpoint(self.http, run_id, directory, step, **options)

    def get(self, key: int | str) -> t.Run:  # the detail is wider than the list row
        return cast(t.Run, self.http.get(f"{self.path}{key}/"))

    def cancel(self, run_id: int) -> t.Run:
        return cast(t.Run, self.action(run_id, "cancel"))

    def pause(self, run_id: int) -> t.Run:
        return cast(t.Run, self.action(run_id, "pause"))

    def resume(self, run_id: int, body: t.ResumeRunRequest | None = None) -> t.Run:
        return cast(t.Run, self.action(run_id, "resume", body or {}))

    def checkpoints(self, run_id: int) -> list[t.Checkpoint]:
        return cast(list[t.Checkpoint], self.http.get(f"{self.path}{run_id}/checkpoints/"))

    def metrics(
        self, run_id: int, *, keys: list[str] | None = None, since: int | None = None
    ) -> t.RunMetrics:
        return cast(
            t.RunMetrics, self.http.get(f"{self.path}{run_id}/metrics/", keys=keys, since=since)
        )

    def compare(self, run_ids: list[int]) -> t.Comparison:
        return cast(t.Comparison, self.http.get(f"{self.path}compare/", ids=run_ids))

    def stream(self, run_id: int, *, since: int | None = None, **options: Any) -> RunStream:
        """The run's socket; iterate ``.frames()``, which reconnects and catches up."""
        return RunStream(self.http.url, self.http.token or "", run_id, since=since, **options)

    def wait(self, run_id: int, **options: Any) -> t.Run:
        """Block until the run ends (its socket says so) and return it as it ended."""
        stream = self.stream(run_id, **options)
        for _ in stream.frames(until_finished=True):
            pass
        return self.get(run_id)

    def logger(self, run_id: int, **options: Any) -> RunLogger:
        """Log metrics into the run; see ``RunLogger`` (never raises into training)."""
        return RunLogger(self.http, run_id, **options)


class Evaluations(Collection[t.EvaluationJob]):
    def get(self, key: int | str) -> t.EvaluationJobDetail:
        return cast(t.EvaluationJobDetail, self.http.get(f"{self.path}{key}/"))

    def create(self, body: t.EvaluationCreateRequest) -> t.EvaluationJob:
        return cast(t.EvaluationJob, self.http.post(self.path, body))

    def wait(
        self, job_id: int, *, timeout_s: float | None = None, poll_s: float = 2.0
    ) -> t.EvaluationJobDetail:
        """The job once it has ended (succeeded, failed or cancelled); ``TimeoutError`` after
        ``timeout_s``. Evaluations have no socket of their own, so this polls its detail."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            job = self.get(job_id)
            if job["state"] not in ("queued", "running"):
                return job
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"evaluation {job_id} is still {job['state']}")
            time.sleep(poll_s)


class Reports(Collection[t.ReportList]):
    def get(self, key: int | str) -> t.Report:
        return cast(t.Report, self.http.get(f"{self.path}{key}/"))

    def create(self, body: t.ReportCreateRequest) -> t.Report:
        return cast(t.Report, self.http.post(self.path, body))

    def submit(self, report_id: int) -> t.Report:
        return cast(t.Report, self.action(report_id, "submit"))

    def review(self, report_id: int, body: t.ReviewCreateRequest) -> t.Report:
        return cast(t.Report, self.action(report_id, "review", body))

    def export(self, report_id: int, to: Path, as_: str = "markdown") -> Path:
        return self.http.download(f"{self.path}{report_id}/export/", to, **{"as": as_})


class Deployments(Collection[t.Deployment]):
    def start(self, slug: str) -> t.Deployment:
        return cast(t.Deployment, self.action(slug, "start"))

    def stop(self, slug: str) -> t.Deployment:
        return cast(t.Deployment, self.action(slug, "stop"))

    def generate(self, slug: str, body: t.ServePromptRequest) -> t.GenerateAnswer:
        return cast(t.GenerateAnswer, self.action(slug, "generate", body))

    def canary(self, slug: str, body: t.CanaryStartRequest) -> t.Canary:
        return cast(t.Canary, self.action(slug, "canary", body))


class Registry:
    """Registered models, their versions (a checkpoint registered) and promotions."""

    def __init__(self, http: Http) -> None:
        self.models: Collection[t.RegisteredModel] = Collection(http, "registered-models")
        self.versions: Collection[t.ModelVersion] = Collection(http, "model-versions")
        self.promotions: Collection[t.Promotion] = Collection(http, "promotions")

    def register(self, body: t.RegisterRequest) -> t.ModelVersion:
        return self.versions.create(body)

    def alias(self, version_id: int, body: t.AliasBodyRequest) -> t.Alias:
        return cast(t.Alias, self.versions.action(version_id, "alias", body))


class Crucible:
    def __init__(self, url: str, token: str | None = None, **options: Any) -> None:
        self.http = Http(url, token, **options)
        self.teams: Collection[t.Team] = Collection(self.http, "teams")
        self.families = Families(self.http, "families")
        self.pools: Collection[t.PoolVersion] = Collection(self.http, "pool-versions")
        self.verifiers = Verifiers(self.http, "verifiers")
        self.curricula: Collection[t.Curriculum] = Collection(self.http, "curricula")
        self.experiments = Experiments(self.http, "experiments")
        self.runs = Runs(self.http, "runs")
        self.suites: Collection[t.EvaluationSuite] = Collection(self.http, "evaluation-suites")
        self.evaluations = Evaluations(self.http, "evaluations")
        self.reports = Reports(self.http, "reports")
        self.registry = Registry(self.http)
        self.deployments = Deployments(self.http, "deployments")
        self.tokens: Collection[t.Token] = Collection(self.http, "tokens")

    @property
    def url(self) -> str:
        return self.http.url

    def me(self) -> t.Me:
        return cast(t.Me, self.http.get(f"{API}/auth/me/"))

    def export_checkpoint(self, checkpoint_id: int, to: Path, adapter_only: bool = False) -> Path:
        """Download a checkpoint as a Hugging Face model directory (an archive) into ``to``."""
        return self.http.download(
            f"{API}/checkpoints/{checkpoint_id}/export/", to,
            adapter_only="true" if adapter_only else None,
        )  # fmt: skip

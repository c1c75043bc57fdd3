"""``manage.py replay_traffic``: send a deployment held-out prompts at a chosen rate.

Each request names its family and task, so both sides of a canary are judged by the
verifier; keys spread the requests over ``--keys`` simulated users (a split canary is
sticky per key). The requests go through the platform's own endpoint (``PLATFORM_URL``, or
``--url``) with a token, as any client's would: ``--token`` (or ``CRUCIBLE_TOKEN``), or
``--user`` to mint one for a day. Without ``--requests`` it sends until the deployment's
running canary has decided (promoted, rolled back, or waiting for a person), at most
``--max-requests``; the progress bar's total is what the canary's step still needs. The
first refusal (a status that is not "try again later", or a platform that cannot be
reached) stops it with the status and the error's message, and so do
``TRY_AGAIN_IN_A_ROW`` "try again later" answers with none answered between them.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from serving import traffic
from serving.models import Deployment
from serving.services import replay

DEFAULT_REQUESTS = 500
"""Sent when no canary is running and ``--requests`` is not given."""
WATCH_S = 1.0
"""How often the canary's state is read while sending."""
TRY_AGAIN_IN_A_ROW = 50
""""Try again later" answers in a row (a replica lost or loading, not just a full queue for a
moment) after which sending more will not help either: the last one stops it."""


class Command(BaseCommand):
    help = "Send a deployment held-out prompts of its families at a chosen rate."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("deployment", help="The deployment's slug.")
        parser.add_argument("--team", help="The team's slug, when several have the slug.")
        parser.add_argument(
            "--url", default=None, help="The platform (default: the PLATFORM_URL setting)."
        )
        parser.add_argument("--token", default=os.environ.get("CRUCIBLE_TOKEN", ""))
        parser.add_argument("--user", help="Mint a one-day token for this user instead.")
        parser.add_argument(
            "--rate",
            type=float,
            default=10.0,
            help="Requests per second (0: as fast as the clients go).",
        )
        parser.add_argument(
            "--requests",
            type=int,
            default=None,
            help="How many to send (default: until the running canary decides, or "
            f"{DEFAULT_REQUESTS} without one).",
        )
        parser.add_argument(
            "--max-requests",
            type=int,
            default=20_000,
            help="At most this many while waiting for a canary to decide.",
        )
        parser.add_argument(
            "--concurrency", type=int, default=8, help="Requests in flight at most."
        )
        parser.add_argument("--keys", type=int, default=100, help="Simulated users (request keys).")
        parser.add_argument("--family", help="Only this family's held-out tasks.")
        parser.add_argument("--max-tasks", type=int, default=500, help="Held-out tasks per family.")

    def handle(self, *args: Any, **options: Any) -> None:
        deployment = _deployment(options["deployment"], options["team"])
        try:
            token = options["token"] or replay.token_for(options["user"], deployment)
            tasks = replay.held_out_tasks(deployment, options["family"], options["max_tasks"])
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        platform = (options["url"] or settings.PLATFORM_URL).rstrip("/")
        url = f"{platform}/api/v1/deployments/{deployment.slug}/generate/"
        canary = None if options["requests"] is not None else replay.running_canary(deployment)
        if options["requests"] is not None:
            n = max(1, options["requests"])
        else:
            n = max(1, options["max_requests"]) if canary else DEFAULT_REQUESTS
        how_many = f"held-out prompts until canary {canary} decides (at most {n})"
        self.stdout.write(
            f"Replaying {how_many if canary else f'{n} held-out prompts'} ({len(tasks)} tasks) to {url} at "
            f"{options['rate'] or 'full'} req/s with {options['concurrency']} clients"
        )
        sender = _Sender(deployment, canary, n, self.stderr._out)
        summary = traffic.send(
            url, token, _bodies(tasks, n, max(1, options["keys"])), rate=options["rate"] or None,
            concurrency=options["concurrency"], on_result=sender.progress, stop=sender.stop,
        )  # fmt: skip
        sender.bar.close()
        self._report(summary, deployment, sender)
        if sender.refusal is not None:
            raise CommandError(_refusal(sender.refusal, platform))

    def _report(self, summary: traffic.Summary, deployment: Deployment, sender: _Sender) -> None:
        figures = summary.to_dict()
        self.stdout.write(
            f"{figures['answered']}/{figures['sent']} answered in {figures['seconds']} s "
            f"({figures['requests_per_s']} req/s); statuses {figures['statuses']}; "
            f"sides {figures['sides']}; p50 {_ms(figures['latency_p50_ms'])}, "
            f"p99 {_ms(figures['latency_p99_ms'])}"
        )
        if summary.last_error and sender.refusal is None:
            self.stdout.write(f"last refusal: {summary.last_error}")
        line = replay.canary_line(deployment)
        if line:
            self.stdout.write(line)


class _Sender:
    """The progress bar, the canary watch and the first refusal, told of every result (from
    the sending threads)."""

    def __init__(self, deployment: Deployment, canary: int | None, n: int, out: Any) -> None:
        self.deployment, self.canary, self.limit = deployment, canary, n
        self.stop = threading.Event()
        self.refusal: traffic.Result | None = None
        self.lock = threading.Lock()
        self.at, self.line, self.unanswered = 0.0, "", 0
        total = None if canary else n
        self.bar = tqdm(total=total, unit="req", file=out, dynamic_ncols=True)

    def progress(self, result: traffic.Result, summary: traffic.Summary) -> None:
        with self.lock:
            self.unanswered = 0 if result.status == 200 else self.unanswered + 1
            stuck = self.unanswered >= TRY_AGAIN_IN_A_ROW
            if (result.refused or stuck) and self.refusal is None:
                self.refusal = result
                self.stop.set()
            now = time.monotonic()
            if now - self.at > WATCH_S:
                self.at = now
                self._watch()
            self.bar.set_postfix_str(_postfix(summary, self.line), refresh=False)
            self.bar.update(1)

    def _watch(self) -> None:
        if self.canary is None:
            self.line = replay.canary_line(self.deployment)
            return
        seen = replay.watch(self.canary)
        self.line = seen.line
        if not seen.running:
            self.stop.set()
        elif seen.needed_requests is not None:
            self.bar.total = min(self.limit, self.bar.n + 1 + seen.needed_requests)


def _deployment(slug: str, team: str | None) -> Deployment:
    rows = Deployment.objects.select_related("team", "version").filter(slug=slug)
    if team:
        rows = rows.filter(team__slug=team)
    found = list(rows[:2])
    if len(found) != 1:
        raise CommandError(
            f"no deployment {slug!r}"
            if not found
            else "several teams have that deployment; name one with --team"
        )
    return found[0]


def _bodies(tasks: Sequence[replay.HeldOutTask], n: int, keys: int) -> Iterator[dict[str, Any]]:
    for i, t in zip(range(n), itertools.cycle(tasks), strict=False):
        yield {"prompt": t.prompt, "family": t.family, "task": t.task, "key": f"user-{i % keys}"}


def _postfix(summary: traffic.Summary, canary: str) -> str:
    errors = sum(v for k, v in summary.statuses.items() if k != 200)
    p95 = summary.percentile(0.95)
    parts = [f"ok {summary.statuses.get(200, 0)}", f"errors {errors}"]
    if p95 is not None:
        parts.append(f"p95 {p95:.0f} ms")
    if canary:
        parts.append(canary)
    return " · ".join(parts)


def _refusal(result: traffic.Result, platform: str) -> str:
    status = "no answer" if result.status == 0 else f"{result.status}"
    first = (
        f"{TRY_AGAIN_IN_A_ROW} answers in a row to try again later"
        if result.retry_after
        else "the first refusal"
    )
    why = f"stopped at {first}: {status}: {result.detail or '(no message)'}"
    if result.status in (0, 404):
        why += (
            f"; is the platform at {platform}? Set PLATFORM_URL (or pass --url) to where "
            "`make run` serves it"
        )
    return why


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"

"""``manage.py replay_traffic``: send a deployment held-out prompts at a chosen rate.

Each request names its family and task, so both sides of a canary are judged by the
verifier; keys spread the requests over ``--keys`` simulated users (a split canary is
sticky per key). The requests go through the platform's own endpoint with a token, as any
client's would: ``--token`` (or ``CRUCIBLE_TOKEN``), or ``--user`` to mint one for a day.
A progress bar shows what came back and, while there is one, the canary's state.
"""

from __future__ import annotations

import itertools
import os
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from serving import traffic
from serving.models import Deployment
from serving.services import replay


class Command(BaseCommand):
    help = "Send a deployment held-out prompts of its families at a chosen rate."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("deployment", help="The deployment's slug.")
        parser.add_argument("--team", help="The team's slug, when several have the slug.")
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="The platform.")
        parser.add_argument("--token", default=os.environ.get("CRUCIBLE_TOKEN", ""))
        parser.add_argument("--user", help="Mint a one-day token for this user instead.")
        parser.add_argument(
            "--rate",
            type=float,
            default=10.0,
            help="Requests per second (0: as fast as the clients go).",
        )
        parser.add_argument("--requests", type=int, default=500, help="How many to send.")
        parser.add_argument(
            "--concurrency", type=int, default=8, help="Requests in flight at most."
        )
        parser.add_argument("--keys", type=int, default=100, help="Simulated users (request keys).")
        parser.add_argument("--family", help="Only this family's held-out tasks.")
        parser.add_argument("--max-tasks", type=int, default=500, help="Held-out tasks per family.")

    def handle(self, *args: Any, **options: Any) -> None:
        rows = Deployment.objects.select_related("team", "version").filter(
            slug=options["deployment"]
        )
        if options["team"]:
            rows = rows.filter(team__slug=options["team"])
        found = list(rows[:2])
        if len(found) != 1:
            raise CommandError(
                f"no deployment {options['deployment']!r}"
                if not found
                else "several teams have that deployment; name one with --team"
            )
        deployment = found[0]
        try:
            token = options["token"] or replay.token_for(options["user"], deployment)
            tasks = replay.held_out_tasks(deployment, options["family"], options["max_tasks"])
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        n, keys = max(1, options["requests"]), max(1, options["keys"])
        bodies = (
            {"prompt": t.prompt, "family": t.family, "task": t.task, "key": f"user-{i % keys}"}
            for i, t in zip(range(n), itertools.cycle(tasks), strict=False)
        )
        url = f"{options['url'].rstrip('/')}/api/v1/deployments/{deployment.slug}/generate/"
        self.stdout.write(
            f"Replaying {n} held-out prompts ({len(tasks)} tasks) to {deployment.slug} at "
            f"{options['rate'] or 'full'} req/s with {options['concurrency']} clients"
        )
        bar = tqdm(total=n, unit="req", file=self.stderr._out, dynamic_ncols=True)
        state = {"at": 0.0, "canary": ""}

        def progress(result: traffic.Result, summary: traffic.Summary) -> None:
            now = time.monotonic()
            if now - state["at"] > 1.0:
                state["at"], state["canary"] = now, replay.canary_line(deployment)
            errors = sum(v for k, v in summary.statuses.items() if k != 200)
            p95 = summary.percentile(0.95)
            parts = [f"ok {summary.statuses.get(200, 0)}", f"errors {errors}"]
            if p95 is not None:
                parts.append(f"p95 {p95:.0f} ms")
            if state["canary"]:
                parts.append(str(state["canary"]))
            bar.set_postfix_str(" · ".join(parts), refresh=False)
            bar.update(1)

        summary = traffic.send(
            url, token, bodies, rate=options["rate"] or None,
            concurrency=options["concurrency"], on_result=progress,
        )  # fmt: skip
        bar.close()
        figures = summary.to_dict()
        self.stdout.write(
            f"{figures['answered']}/{figures['sent']} answered in {figures['seconds']} s "
            f"({figures['requests_per_s']} req/s); statuses {figures['statuses']}; "
            f"sides {figures['sides']}; p50 {_ms(figures['latency_p50_ms'])}, "
            f"p99 {_ms(figures['latency_p99_ms'])}"
        )
        if summary.last_error:
            self.stdout.write(f"last refusal: {summary.last_error}")
        line = replay.canary_line(deployment)
        if line:
            self.stdout.write(line)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"

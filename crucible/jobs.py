"""The one place that sends work to Celery.

Services queue a job by its task's name, never by importing the task: the tasks modules
import the services at the top, and the services stay free of them. Which queue a job goes
to is said once, in ``CELERY_TASK_ROUTES``; a name without a route is a programming error,
caught here before anything is sent.

Each app names its jobs in a small ``jobs`` module of constants (``experiments.jobs``),
which its tasks use as their ``name=`` and its services pass to ``send``.
"""

from __future__ import annotations

from collections.abc import Callable
from fnmatch import fnmatchcase
from typing import Any

from django.conf import settings
from django.db import transaction

from crucible.celery_app import app


class UnroutedJob(LookupError):
    """A job name that ``CELERY_TASK_ROUTES`` gives no queue."""


def queue_of(name: str) -> str:
    """The queue ``CELERY_TASK_ROUTES`` sends job ``name`` to."""
    routes: dict[str, dict[str, str]] = settings.CELERY_TASK_ROUTES
    for pattern, route in routes.items():
        if fnmatchcase(name, pattern):
            return route["queue"]
    raise UnroutedJob(f"{name!r} has no queue in CELERY_TASK_ROUTES")


def send(name: str, *args: Any, countdown: float | None = None) -> None:
    """Queue job ``name`` with ``args`` now, on the queue its route names."""
    app.send_task(name, args=list(args), queue=queue_of(name), countdown=countdown)


def send_on_commit(name: str, *args: Any) -> None:
    """Queue job ``name`` once the current transaction commits (at once outside one).

    ``robust``: a broker that refuses the message does not turn a committed write into an
    error; the job's owner re-sends what stayed queued (see ``RUN_QUEUED_RESEND_SECONDS``).
    """
    queue_of(name)  # an unrouted name fails here, inside the request, not after the commit
    transaction.on_commit(lambda: send(name, *args), robust=True)


def sender(name: str) -> Callable[..., None]:
    """``send`` bound to ``name``: a runner to hand to code that must not know the name."""
    queue_of(name)

    def send_job(*args: Any) -> None:
        send(name, *args)

    return send_job

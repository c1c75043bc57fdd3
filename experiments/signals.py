"""Celery worker hooks: a worker advertises itself from the moment it is ready until it stops.

Connected in ``ExperimentsConfig.ready``; in a web process they are connected too but never
fire. The work is in ``experiments.services.workers``.
"""

from __future__ import annotations

from typing import Any

from celery import signals

from experiments.services import workers


def on_worker_ready(sender: Any = None, **kwargs: Any) -> None:
    """``sender`` is the worker's consumer: its node name and the queues it consumes."""
    queues = sorted(sender.app.amqp.queues.consume_from)
    workers.start_heartbeat(sender.hostname, queues)


def on_worker_shutdown(sender: Any = None, **kwargs: Any) -> None:
    """``sender`` is the worker controller."""
    workers.stop_heartbeat(sender.hostname)


def connect() -> None:
    signals.worker_ready.connect(on_worker_ready, weak=False, dispatch_uid="experiments.ready")
    signals.worker_shutdown.connect(
        on_worker_shutdown, weak=False, dispatch_uid="experiments.shutdown"
    )

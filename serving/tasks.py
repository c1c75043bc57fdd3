"""Celery entry points: thin, idempotent (late acks; a re-delivered job finds it claimed)."""

from __future__ import annotations

import socket

from celery import Task, shared_task

from .jobs import SERVE_REPLICA, SERVE_REPLICA_BEFORE_SERVING_APP
from .services import replicas


@shared_task(bind=True, name=SERVE_REPLICA, acks_late=True)
def serve_replica(self: Task, replica_id: int) -> None:
    """Hold a deployment's model and answer its requests until told to stop (``serve``)."""
    replicas.run_job(replica_id, self.request.hostname or socket.gethostname())


# A replica queued before the upgrade that moved serving out of experiments waits on the
# ``serve`` queue under the old name: a worker that did not know it would drop the message
# and the deployment would never get its replica. Kept registered (and routed) until no
# queue can hold such a message.
@shared_task(bind=True, name=SERVE_REPLICA_BEFORE_SERVING_APP, acks_late=True)
def serve_replica_queued_before_upgrade(self: Task, replica_id: int) -> None:
    replicas.run_job(replica_id, self.request.hostname or socket.gethostname())

"""The Celery worker's consumer, made to survive losing a Redis broker while a task runs.

Celery 5.7 answers a lost broker connection by clearing the connection's transport and then
closing the connection. Closing its channel gives the unacknowledged messages back to Redis
("Restoring 1 unacknowledged message(s)"), which needs the transport just cleared, so it
raises ``AttributeError: 'NoneType' object has no attribute 'hostname'``; nothing catches
that, and the worker exits while its running task (a training run, acknowledged late) is
still going. Closing a connection that is already broken can only fail that way, so here it
is logged and the consumer goes on: it cancels the running late-acknowledged tasks
(``worker_cancel_long_running_tasks_on_connection_loss``) and reconnects. The messages of
those tasks came over the lost connection, and acknowledging (or rejecting) one when its task
ends would fail the same way and end the worker; they are taken as settled instead: the
broker hands an unacknowledged message out again after its visibility timeout, or lost it
with a restart, and a training run's claim drops a duplicate either way. A cancelled
training run resumes from its last checkpoint once the reaper sees its heartbeat stop, and a
message the broker lost is sent again by the reaper (``experiments.services.workers``).
"""

from __future__ import annotations

import logging

from celery.worker.consumer import Consumer as CeleryConsumer
from celery.worker.state import active_requests

logger = logging.getLogger(__name__)


class Consumer(CeleryConsumer):
    def on_connection_error_after_connected(self, exc: Exception) -> None:
        connection = self.connection
        if connection is not None:
            close = connection.close

            def close_broken() -> None:
                try:
                    close()
                except AttributeError as error:  # the cleared transport, see above
                    logger.warning(
                        "worker.broken_connection_not_closed", extra={"error": repr(error)}
                    )

            connection.close = close_broken  # type: ignore[method-assign]
        lost = tuple(active_requests)
        super().on_connection_error_after_connected(exc)
        for request in lost:
            request.acknowledged = True  # nothing to acknowledge it on: see above

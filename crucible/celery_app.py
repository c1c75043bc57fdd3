"""The Celery application; configuration lives in Django settings under CELERY_*."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crucible.settings.base")

app = Celery("crucible")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="crucible.ping", acks_late=True)
def ping(echo: str = "pong") -> dict:
    """A health probe: proves a worker consumes from the broker and can report back."""
    import socket

    return {"echo": echo, "worker": socket.gethostname()}

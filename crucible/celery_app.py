"""The Celery application; configuration lives in Django settings under CELERY_*."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crucible.settings.base")

app = Celery("crucible")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

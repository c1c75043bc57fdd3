"""The Crucible Django project package.

Named ``crucible`` rather than ``platform``: a top-level ``platform`` package would
shadow the standard-library module that ``uuid``, ``torch`` and ``celery`` import.
"""

from .celery_app import app as celery_app

__all__ = ["celery_app"]

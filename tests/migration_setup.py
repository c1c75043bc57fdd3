"""A PostgreSQL test database moved back to older migrations, and forward again after."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.conftest import need_service


@contextmanager
def migrated_back_to(targets: list[tuple[str, str | None]]) -> Iterator[MigrationExecutor]:
    """The executor with the database at ``targets``; whatever the test did, the next one
    finds the database at the newest migrations."""
    if connection.vendor != "postgresql":
        need_service("the upgrade is checked on PostgreSQL (DATABASE_URL)")
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    try:
        yield executor
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
        ContentType.objects.clear_cache()

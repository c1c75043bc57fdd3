"""Fixtures of the tasks_app endpoint suites."""

from tests.crucible.conftest import openapi  # noqa: F401

"""Fixtures shared by the tasks_app suites."""

from tests.tasks_app.verifiers.conftest import JUDGE_TEMPLATE, judge_model_dir  # noqa: F401

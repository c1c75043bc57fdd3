from __future__ import annotations

from collections.abc import Iterator

import pytest

from experiments.models import Run
from experiments.services import run_hooks, suites


@pytest.fixture
def callbacks() -> Iterator[list[run_hooks.RunCallback]]:
    saved = list(run_hooks._succeeded)
    run_hooks._succeeded.clear()
    yield run_hooks._succeeded
    run_hooks._succeeded[:] = saved


def test_it_calls_each_callback_once_in_registration_order(callbacks: list) -> None:
    seen: list[tuple[str, int | None]] = []
    first = lambda run: seen.append(("first", run.pk))  # noqa: E731
    second = lambda run: seen.append(("second", run.pk))  # noqa: E731
    run_hooks.on_run_succeeded(first)
    run_hooks.on_run_succeeded(second)
    run_hooks.on_run_succeeded(first)  # a second ``ready`` registers nothing new

    run_hooks.run_succeeded(Run(pk=7))

    assert seen == [("first", 7), ("second", 7)]


def test_it_registers_the_final_evaluation_when_the_app_is_ready() -> None:
    assert suites.evaluate_finished_run in run_hooks._succeeded

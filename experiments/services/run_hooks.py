"""What else happens when a run succeeds, without the run lifecycle knowing who cares.

The training job calls ``run_succeeded`` once a run has moved to its final state; the
concepts that follow a run (evaluation on its experiment's suite) register a callback in
``ExperimentsConfig.ready``. So the lifecycle imports nothing that imports it back.
"""

from __future__ import annotations

from collections.abc import Callable

from ..models import Run

RunCallback = Callable[[Run], object]
_succeeded: list[RunCallback] = []


def on_run_succeeded(callback: RunCallback) -> None:
    """Call ``callback(run)`` each time a run succeeds (once per callback, however often
    this is called with it: ``ready`` may run more than once in a test process)."""
    if callback not in _succeeded:
        _succeeded.append(callback)


def run_succeeded(run: Run) -> None:
    """Tell every registered callback that ``run`` succeeded, in registration order."""
    for callback in _succeeded:
        callback(run)

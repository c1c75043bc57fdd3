"""Which model a job may name (the difficulty job's ``model_path``).

The workers, and so the models they can load, are known to the experiments app, which
tasks_app never imports: that app provides the check from its ``AppConfig.ready``. Without
one, every name passes here and the job itself refuses an unknown model.
"""

from __future__ import annotations

from collections.abc import Callable

ModelCheck = Callable[[str, str | None], str | None]
"""``check(name, queue) -> why no running worker serving queue can load it, or None``."""

_check: ModelCheck | None = None


def provide(check: ModelCheck) -> None:
    global _check
    _check = check


def problem(name: str, queue: str | None = None) -> str | None:
    """Why model ``name`` cannot be loaded by a worker on ``queue``; None when it can."""
    return _check(name, queue) if _check is not None else None

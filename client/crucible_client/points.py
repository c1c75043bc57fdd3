"""A metric point as the ingest endpoint takes it (standard library only, for the tracking
callback too)."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any


def metric_points(
    step: int,
    metrics: Mapping[str, float],
    tokens: int | None = None,
    wall_time: float | None = None,
) -> list[dict[str, Any]]:
    """One point per metric at ``step``: NaN and infinities as null, stamped with the wall
    time (now, unless given). A value that is not a number raises ``TypeError`` at once,
    before anything is buffered."""
    now = time.time() if wall_time is None else wall_time
    for key, value in metrics.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"metric {key!r}: a number, got {type(value).__name__}")
    return [
        {
            "key": key,
            "step": int(step),
            "value": float(value) if math.isfinite(value) else None,
            "wall_time": now,
            "tokens": None if tokens is None else int(tokens),
        }
        for key, value in metrics.items()
    ]

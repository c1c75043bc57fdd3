"""The accepted range of a numeric config field, carried in the field's metadata.

Every engine config (`training.config`, `training.lora`) declares its numeric fields with
`bounded(default, low, high)`; `field_range` reads the `Range` back, and the platform's parser
and the algorithms API show the same one.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Range:
    """The values a numeric field accepts: `low` to `high`, each end included unless open.

    Every bound is finite, so nan, inf and absurd magnitudes (a 1e308 learning rate) are
    refused by name before anything is sized from them."""

    low: float
    high: float
    low_open: bool = False
    high_open: bool = False

    def contains(self, value: float) -> bool:
        if not math.isfinite(value):
            return False
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def describe(self) -> str:
        low, high = _shown(self.low), _shown(self.high)
        if not self.low_open and not self.high_open:
            return f"from {low} to {high}"
        first = f"above {low}" if self.low_open else f"at least {low}"
        return f"{first} and {'below' if self.high_open else 'at most'} {high}"


RANGE = "range"
"""Field-metadata key of a numeric field's `Range`."""


def bounded(
    default: Any, low: float, high: float, *, low_open: bool = False, high_open: bool = False
) -> Any:
    """A dataclass field with `default` whose accepted values are the `Range` low..high."""
    return field(default=default, metadata={RANGE: Range(low, high, low_open, high_open)})


def field_range(cls: type, name: str) -> Range | None:
    """The `Range` of field `name` of config class `cls` (a subclass may override a field's
    default without repeating its range), or None for a field that is not numeric."""
    for klass in cls.__mro__:
        if not dataclasses.is_dataclass(klass):
            continue
        for f in dataclasses.fields(klass):
            if f.name == name and RANGE in f.metadata:
                return f.metadata[RANGE]
    return None


def _shown(value: float) -> str:
    """A bound as people write it: 1000000, 0.5, 1e-06."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(value)

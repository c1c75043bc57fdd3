"""Turning pure-logic errors into field-named API errors."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_framework.exceptions import ErrorDetail, ValidationError


def field_errors(
    pairs: Iterable[tuple[str, str]], *, prefix: str = "", code: str = "invalid"
) -> ValidationError:
    """A ValidationError whose keys are field paths (``spec.layers[2].params.tolerance``)."""
    detail: dict[str, list[Any]] = {}
    for field, reason in pairs:
        path = f"{prefix}.{field}" if prefix and field else (prefix or field)
        detail.setdefault(path, []).append(ErrorDetail(reason, code=code))
    return ValidationError(detail)

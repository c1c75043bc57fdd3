"""Build and run one layer the way the runner does, with its params validated first."""

from __future__ import annotations

from typing import Any

from tasks_app.verifiers.base import LayerResult
from tasks_app.verifiers.layers import layer_class
from tasks_app.verifiers.spec import canonical


def run_layer(
    kind: str,
    extracted: str,
    expected: dict[str, Any] | None = None,
    *,
    response: str | None = None,
    context: dict[str, Any] | None = None,
    **params: Any,
) -> LayerResult:
    spec = canonical({"extract": "full_text", "layers": [{"kind": kind, "params": params}]})
    item = spec["layers"][0]
    layer = layer_class(kind)(item["name"], item["params"])
    return layer.run(extracted, response or extracted, expected or {}, context or {})

"""Stage order: syntax → semantics → boundary → constraints and judge.

A layer runs only when every layer above it passed (unless that one continues on failure), so a
syntax check placed below a semantic one is skipped exactly when it would have said why the
response failed. The builder inserts a new layer at the end of its stage; ``stage_warnings``
says when a spec has a layer below one of a later stage anyway.

Pure Python: no Django import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tasks_app.verifiers.base import Stage
from tasks_app.verifiers.layers import layer_class
from tasks_app.verifiers.spec import Spec, canonical, validate_spec

STAGE_RANK: dict[Stage, int] = {
    Stage.SYNTAX: 0,
    Stage.SEMANTIC: 1,
    Stage.BOUNDARY: 2,
    Stage.CONSTRAINT: 3,
    Stage.JUDGE: 3,
}
"""Where a stage's layers belong, top to bottom; constraints and the judge share the last place."""

STAGE_LABELS: dict[Stage, str] = {
    Stage.SYNTAX: "syntax",
    Stage.SEMANTIC: "semantics",
    Stage.BOUNDARY: "boundary",
    Stage.CONSTRAINT: "constraints",
    Stage.JUDGE: "judge",
}


@dataclass(frozen=True)
class _Placed:
    name: str
    stage: Stage
    continue_on_fail: bool

    @property
    def rank(self) -> int:
        return STAGE_RANK[self.stage]

    def blocks(self, later: _Placed) -> bool:
        """Whether ``later``, placed below this layer, is skipped whenever this one fails.

        A constraint placed early is a deliberate gate, cheap and certain (forbidden imports
        before any test runs the code), so it is not flagged.
        """
        return (
            self.rank > later.rank
            and not self.continue_on_fail
            and self.stage is not Stage.CONSTRAINT
        )


def stage_warnings(spec: Spec | Any) -> list[str]:
    """One sentence per layer that runs below a layer of a later stage which can skip it.

    An invalid spec has no warnings here: ``validate_spec`` reports what is wrong with it.
    """
    if validate_spec(spec):
        return []
    layers = [
        _Placed(item["name"], layer_class(item["kind"]).stage, item["continue_on_fail"])
        for item in canonical(spec)["layers"]
    ]
    warnings = []
    for index, layer in enumerate(layers):
        blocker = next((above for above in layers[:index] if above.blocks(layer)), None)
        if blocker is not None:
            warnings.append(_sentence(layer, blocker))
    return warnings


def _sentence(layer: _Placed, blocker: _Placed) -> str:
    return (
        f"'{layer.name}' ({STAGE_LABELS[layer.stage]}) runs after '{blocker.name}' "
        f"({STAGE_LABELS[blocker.stage]}): it is skipped whenever {blocker.name} fails"
    )

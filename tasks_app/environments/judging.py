"""An episode's verdict: the family's verifier on the final state, plus per-turn process parts.

Pure Python: no Django import. The outcome is the family's layered verifier judging
``final_state["answer"]`` (the final answer) exactly as it judges a single-turn response.
Each per-turn error type adds a part, in [0, 1]: the share of the episode's assistant turns
free of it (1.0 for an episode without turns)::

    tool_format   turns whose tool calls all parsed and named a tool   (tool_call_parse)
    tool_success  turns whose tools all ran without failing            (tool_error)
    valid_moves   turns the environment's rules allowed                (invalid_move)

A spec weighs them like any other part (``reward.weights.tool_format``...); they add to the
verifier's weighted sum unless the final answer was malformed, when ``failure_reward`` stands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tasks_app.environments.base import INVALID_MOVE, TOOL_CALL_PARSE, TOOL_ERROR
from tasks_app.verifiers import build_verifier
from tasks_app.verifiers.base import Verdict
from tasks_app.verifiers.reward import malformed

TURN_PARTS = {
    TOOL_CALL_PARSE: "tool_format",
    TOOL_ERROR: "tool_success",
    INVALID_MOVE: "valid_moves",
}
"""Per-turn error type -> the reward part counting the turns without it."""


def turn_parts(errors: Sequence[str | None]) -> dict[str, float]:
    """Each part of ``TURN_PARTS``: the share of turns (``errors``, one per turn) without it."""
    turns = len(errors)
    return {
        part: (1.0 - sum(e == error for e in errors) / turns) if turns else 1.0
        for error, part in TURN_PARTS.items()
    }


def judge_episode(
    spec: dict[str, Any],
    final_state: Mapping[str, Any],
    errors: Sequence[str | None],
    expected: dict[str, Any] | None = None,
    *,
    context: dict[str, Any] | None = None,
) -> Verdict:
    """The verifier's verdict on the final answer, its parts and reward widened by the turns'."""
    verifier = build_verifier(spec)
    verdict = verifier.judge(str(final_state.get("answer") or ""), expected, context)
    parts = turn_parts(errors)
    weights = verifier.spec["reward"]["weights"]
    if not malformed(verdict.layers):
        verdict.reward += sum(weights.get(name, 0.0) * value for name, value in parts.items())
    verdict.parts.update(parts)
    return verdict

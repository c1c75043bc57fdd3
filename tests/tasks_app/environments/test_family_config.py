"""A family's ``environment``: the stored shape, defaults filled in, every problem named."""

import pytest

from tasks_app.environments.base import EpisodeLimits
from tasks_app.environments.family_config import (
    EnvironmentConfigInvalid,
    checked_environment,
    kind_of,
    limits_of,
)


def fields_of(value, family_kind="guess-number"):
    with pytest.raises(EnvironmentConfigInvalid) as caught:
        checked_environment(value, family_kind)
    return [path for path, _ in caught.value.errors]


def test_null_is_a_single_turn_family_and_limits_default_to_the_kinds():
    assert checked_environment(None, "arithmetic") is None
    stored = checked_environment(
        {"kind": "guess-number", "limits": {"max_turns": 5}}, "guess-number"
    )
    assert stored == {
        "kind": "guess-number",
        "limits": {"max_turns": 5, "max_tokens_per_turn": 4, "max_total_tokens": 96},
    }
    assert kind_of(stored) == "guess-number" and kind_of(None) is None
    assert limits_of(stored) == EpisodeLimits(5, 4, 96)
    assert checked_environment({"kind": "python-tool"}, "math-word")["limits"]["max_turns"] == 4


def test_each_problem_names_its_field():
    assert fields_of([]) == ["environment"]
    assert fields_of({"kind": "guess-number", "tools": []}) == ["environment.tools"]
    assert fields_of({"limits": {}}) == ["environment.kind"]
    assert fields_of({"kind": "chess"}) == ["environment.kind"]
    # The kind must play the family's kind.
    assert fields_of({"kind": "sql-tool"}, "guess-number") == ["environment.kind"]
    assert fields_of({"kind": "guess-number", "limits": 3}) == ["environment.limits"]
    assert fields_of({"kind": "guess-number", "limits": {"turns": 3}}) == [
        "environment.limits.turns"
    ]
    assert fields_of(
        {"kind": "guess-number", "limits": {"max_turns": 0, "max_total_tokens": True}}
    ) == ["environment.limits.max_turns", "environment.limits.max_total_tokens"]
    assert fields_of(
        {"kind": "guess-number", "limits": {"max_tokens_per_turn": 200, "max_total_tokens": 100}}
    ) == ["environment.limits.max_tokens_per_turn"]

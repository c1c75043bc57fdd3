"""The platform's environments as the engine's episode inputs: opened, stepped, judged."""

from __future__ import annotations

import pytest

from experiments.episode_adapters import (
    EpisodeFamily,
    check_families,
    environment_spec,
)
from tasks_app.environments import guess_number
from tasks_app.environments.base import EpisodeLimits
from tasks_app.families.registry import load_kind
from training.episodes import EpisodeRecord, TurnLimits
from training.interfaces import Item

SPEC = load_kind("guess-number").default_verifier()
LIMITS = {"max_turns": 7, "max_tokens_per_turn": 4, "max_total_tokens": 96}


def item(secret: int = 3) -> Item:
    expected = {"answer": str(secret), "low": 2, "high": 4, "max_turns": 3}
    return Item(prompt="guess 2-4?", payload=expected, family="guesses", difficulty=2)


def family(limits=EpisodeLimits(5, 4, 96)) -> EpisodeFamily:
    return EpisodeFamily("guess-number", guess_number, SPEC, limits)


def played(spec, it: Item, guesses: list[str]) -> EpisodeRecord:
    env = spec.make(it)
    messages, tools = env.open()
    errors = []
    for guess in guesses:
        turn = env.reply(guess)
        messages += [{"role": "assistant", "content": guess}, *turn.messages]
        errors.append(turn.error)
        if turn.done:
            break
    return EpisodeRecord(messages, tools, len(errors), errors, env.final_state(), "environment")


def test_an_item_is_played_by_its_familys_environment_and_judged_by_its_verifier():
    spec = environment_spec({"guesses": family()})
    assert spec.limits == TurnLimits(5, 4, 96)
    solved = played(spec, item(3), ["9", "2", "3"])
    assert solved.messages[0] == {"role": "user", "content": "guess 2-4?"}
    assert solved.errors == ["invalid_move", None, None]
    assert [m["content"] for m in solved.messages[1:]] == ["9", "!2-4?", "2", ">3-4?", "3", "="]
    lost = played(spec, item(4), ["2", "3", "x"])
    first, second = spec.reward_fn([item(3), item(4)], [solved, lost])
    assert first.passed and first.reward == 1.0 and first.error_type is None
    assert first.parts["valid_moves"] == pytest.approx(2 / 3) and first.details["layers"][0]["passed"]
    assert not second.passed and second.reward == 0.0 and second.error_type


def test_one_run_trains_on_episodes_or_single_responses_with_one_set_of_limits():
    stored = {"kind": "guess-number", "limits": LIMITS}
    assert check_families([("a", stored), ("b", stored)]) == []
    assert check_families([("a", None), ("b", None)]) == []
    mixed = check_families([("a", stored), ("b", None)], where="config.curriculum.families")
    assert [field for field, _ in mixed] == ["config.curriculum.families[1]"]
    assert "single-turn" in mixed[0][1]
    other = {"kind": "guess-number", "limits": {**LIMITS, "max_turns": 3}}
    differ = check_families([("a", stored), ("b", other)])
    assert [field for field, _ in differ] == ["curriculum.families"] and "limits" in differ[0][1]

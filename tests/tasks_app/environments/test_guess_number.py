"""The guess-the-number environment and its family: feedback, budget, registry."""

import re

from tasks_app.environments import guess_number as env_kind
from tasks_app.environments.base import INVALID_MOVE, EpisodeLimits, Message, run_episode
from tasks_app.environments.registry import describe_environments, load_environment
from tasks_app.families import guess_number
from tasks_app.families.registry import load_kind


def bisect(messages, tools):
    low, high = map(int, re.findall(r"\d+", messages[-1].content))
    return Message("assistant", str((low + high) // 2))


def test_a_bisection_always_wins_within_the_budget():
    for level in guess_number.difficulty_levels:
        for task in guess_number.generate(20, difficulty=level, seed=3):
            assert task.expected["max_turns"] == level + 1 and task.difficulty == level
            episode = run_episode(env_kind.make(), task, bisect, EpisodeLimits(max_turns=8))
            assert episode.final_state["solved"], task
            assert episode.final_state["answer"] == guess_number.reference_response(task)


def test_it_answers_higher_lower_and_invalid_moves():
    task = guess_number.make_task(12, 3, 17)
    assert task.prompt == "guess 3-17?"
    env = env_kind.make()
    env.reset(task)
    assert env.step(Message("assistant", "10")).messages[0].content == ">11-17?"
    assert env.step(Message("assistant", "15")).messages[0].content == "<11-14?"
    wrong = env.step(Message("assistant", "99"))
    assert (wrong.messages[0].content, wrong.error) == ("!11-14?", INVALID_MOVE)
    last = env.step(Message("assistant", "12"))
    assert last.done and last.messages[0].content == "="
    assert env.final_state() == {
        "answer": "12", "solved": True, "turns": 4, "guesses": ["10", "15", "99", "12"],
    }


def test_the_episode_ends_when_the_turns_are_spent():
    task = guess_number.make_task(5, 1, 7)  # a budget of 4 turns
    episode = run_episode(env_kind.make(), task, lambda m, t: Message("assistant", "1"), EpisodeLimits())
    assert episode.turns == 4 and episode.ended_by == "environment"
    assert not episode.final_state["solved"]


def test_both_registries_know_the_game():
    assert load_kind("guess-number").environment == "guess-number"
    assert load_environment("guess-number").family == "guess-number"
    described = {d["name"]: d for d in describe_environments()}
    assert described["guess-number"]["default_limits"]["max_turns"] == 7


def test_imported_rows_are_checked_by_field():
    task = guess_number.from_record({"secret": "7", "low": 1, "high": "15"})
    assert task.expected["max_turns"] == 5
    for record, field in (
        ({"secret": "x", "low": 1, "high": 5}, "secret"),
        ({"secret": 9, "low": 1, "high": 5}, "secret"),
        ({"secret": 9, "low": 1, "high": 99}, "high"),
    ):
        try:
            guess_number.from_record(record)
        except Exception as exc:  # RowError
            assert exc.field == field
        else:
            raise AssertionError(record)

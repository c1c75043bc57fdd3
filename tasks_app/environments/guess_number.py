"""Guess the number with higher/lower feedback: the environment the tiny model learns on a CPU.

In the built-in tiny model's format (``training/guessing.py`` writes the same, and may not be
imported from here; a test asserts the two agree): the opening is the task's prompt
``guess 3-17?``; each assistant message is a number; the environment answers ``<3-9?`` (the
secret is lower; the interval left) or ``>11-17?`` (higher), ``=`` when it is found, and
``!3-17?`` to a message that is not a number inside the interval (an ``invalid_move`` turn).
The family ``guess-number`` makes the tasks; its turn budget is the task's ``max_turns``,
one more than a bisection needs, so a model that halves the interval wins every episode and
one that guesses at random or at the interval's ends often runs out of turns.
"""

from __future__ import annotations

from typing import Any

from tasks_app.environments.base import (
    INVALID_MOVE,
    Environment,
    EpisodeLimits,
    Message,
    Opening,
    StepResult,
)
from tasks_app.families.base import Task

name = "guess-number"
label = "Guess the number (CPU demo)"
description = (
    "Find a secret number in an interval: the model guesses, the environment answers higher "
    "or lower with the interval left, within a budget of turns a bisection always meets."
)
family = "guess-number"
tools: tuple = ()
default_limits = EpisodeLimits(max_turns=7, max_tokens_per_turn=4, max_total_tokens=96)


def feedback(low: int, high: int, mark: str) -> str:
    """The environment's text: ``mark`` (``<``, ``>`` or ``!``) and the interval still open."""
    return f"{mark}{low}-{high}?"


def judge_guess(text: str, low: int, high: int, secret: int) -> tuple[str, int, int]:
    """(reply, low, high) after the guess ``text``: ``=`` when found, else the feedback and
    the interval narrowed (unchanged after an invalid guess)."""
    guess = text.strip()
    if not (guess.isascii() and guess.isdigit()) or not low <= int(guess) <= high:
        return feedback(low, high, "!"), low, high
    value = int(guess)
    if value == secret:
        return "=", value, value
    if secret < value:
        return feedback(low, value - 1, "<"), low, value - 1
    return feedback(value + 1, high, ">"), value + 1, high


class GuessNumber(Environment):
    def __init__(self) -> None:
        self.low = self.high = self.secret = self.max_turns = 0
        self.guesses: list[str] = []
        self.solved = False

    def reset(self, task: Task) -> Opening:
        expected = task.expected
        self.low, self.high = int(expected["low"]), int(expected["high"])
        self.secret, self.max_turns = int(expected["answer"]), int(expected["max_turns"])
        self.guesses, self.solved = [], False
        return Opening((Message("user", task.prompt),))

    def step(self, message: Message) -> StepResult:
        self.guesses.append(message.content.strip()[:16])
        reply, self.low, self.high = judge_guess(message.content, self.low, self.high, self.secret)
        self.solved = reply == "="
        done = self.solved or len(self.guesses) >= self.max_turns
        error = INVALID_MOVE if reply.startswith("!") else None
        return StepResult((Message("user", reply),), done, error, {"interval": [self.low, self.high]})

    def final_state(self) -> dict[str, Any]:
        """``answer`` is the last guess (what the family's verifier compares with the secret)."""
        return {
            "answer": self.guesses[-1] if self.guesses else "",
            "solved": self.solved,
            "turns": len(self.guesses),
            "guesses": list(self.guesses),
        }


def make(params: dict[str, Any] | None = None) -> GuessNumber:
    return GuessNumber()

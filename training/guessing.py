"""Guess the number, the multi-turn task a tiny model learns on a CPU.

The format of `tasks_app.environments.guess_number` (which this package may not import; a
test asserts the two agree): the opening `guess 3-17?`, a number as each assistant message,
the environment's `<3-9?` (lower; the interval left), `>11-17?` (higher), `=` (found) or
`!3-17?` (not a number inside the interval). An interval of 2**d - 1 numbers comes with
d + 1 turns: one more than a bisection needs.

The flawed teacher the demo warm-starts on guesses one of the interval's ends 70% of the time
and a number drawn inside it otherwise, so a model that copies it wins about 4 episodes in
10; RL on the episode's pass/fail reward moves its guesses inside and towards the middle,
which wins more episodes in fewer turns (uniform guessing alone wins about 3 in 4).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from training.episodes import EnvironmentSpec, EnvTurn, EpisodeRecord, TurnLimits
from training.interfaces import Item, RewardResult

FAMILY = "guess_number"
MAX_NUMBER = 99
LEVELS = (2, 3, 4, 5, 6)
"""Level d: 2**d - 1 numbers, d + 1 turns."""
INVALID_MOVE = "invalid_move"


def turn_budget(low: int, high: int) -> int:
    return (high - low + 1).bit_length() + 1


def make_item(secret: int, low: int, high: int) -> Item:
    budget = turn_budget(low, high)
    return Item(
        prompt=f"guess {low}-{high}?",
        payload={"secret": secret, "low": low, "high": high, "max_turns": budget},
        family=FAMILY,
        difficulty=budget - 1,
    )


def feedback(low: int, high: int, mark: str) -> str:
    return f"{mark}{low}-{high}?"


def judge_guess(text: str, low: int, high: int, secret: int) -> tuple[str, int, int]:
    """(reply, low, high) after the guess `text` (as `tasks_app`'s game answers it)."""
    guess = text.strip()
    if not (guess.isascii() and guess.isdigit()) or not low <= int(guess) <= high:
        return feedback(low, high, "!"), low, high
    value = int(guess)
    if value == secret:
        return "=", value, value
    if secret < value:
        return feedback(low, value - 1, "<"), low, value - 1
    return feedback(value + 1, high, ">"), value + 1, high


class GuessEnvironment:
    """One episode of the game, driven by the engine (`training.episodes.EpisodeEnvironment`)."""

    def __init__(self, item: Item) -> None:
        self.prompt = item.prompt
        payload = item.payload
        self.low, self.high, self.secret = payload["low"], payload["high"], payload["secret"]
        self.max_turns = payload["max_turns"]
        self.guesses: list[str] = []
        self.solved = False

    def open(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        return [{"role": "user", "content": self.prompt}], []

    def reply(self, text: str) -> EnvTurn:
        self.guesses.append(text.strip()[:16])
        reply, self.low, self.high = judge_guess(text, self.low, self.high, self.secret)
        self.solved = reply == "="
        done = self.solved or len(self.guesses) >= self.max_turns
        error = INVALID_MOVE if reply.startswith("!") else None
        return EnvTurn([{"role": "user", "content": reply}], done, error)

    def final_state(self) -> dict[str, Any]:
        return {
            "answer": self.guesses[-1] if self.guesses else "",
            "solved": self.solved,
            "turns": len(self.guesses),
        }


def reward_fn(items: Sequence[Item], episodes: Sequence[EpisodeRecord]) -> list[RewardResult]:
    """1 for an episode that found the secret within its turns, else 0."""
    out = []
    for episode in episodes:
        solved = bool(episode.final_state.get("solved"))
        error = None if solved else "unsolved"
        out.append(RewardResult(float(solved), solved, {"solved": float(solved)}, error))
    return out


def environment(limits: TurnLimits | None = None) -> EnvironmentSpec:
    """The game as a run's environment: 2 digits and a stop token a turn at most."""
    return EnvironmentSpec(
        GuessEnvironment,
        reward_fn,
        limits or TurnLimits(max_turns=LEVELS[-1] + 1, max_tokens_per_turn=3, max_total_tokens=96),
    )


def random_task(rng: random.Random, level: int) -> Item:
    size = 2**level - 1
    low = rng.randint(1, MAX_NUMBER - size + 1)
    return make_item(rng.randint(low, low + size - 1), low, low + size - 1)


EDGE_RATE = 0.7
"""How often the flawed teacher guesses an end of the interval instead of a number drawn
uniformly inside it."""


def flawed_guess(low: int, high: int, rng: random.Random) -> int:
    """The teacher: one of the interval's ends `EDGE_RATE` of the time, else uniform inside."""
    if rng.random() < EDGE_RATE:
        return rng.choice((low, high))
    return rng.randint(low, high)


class GuessSampler:
    """Tasks at levels `min_level`..`max_level`. With `teacher_stop` (the text that ends an
    assistant turn, e.g. the tokenizer's EOS), each item is instead a teacher's move for SFT:
    the transcript of a game the flawed teacher has played for some turns as the prompt, and
    its next guess as the answer."""

    def __init__(
        self, min_level: int = 3, max_level: int = 6, seed: int = 0, teacher_stop: str | None = None
    ) -> None:
        self.levels = list(range(min_level, max_level + 1))
        self.rng = random.Random(seed)
        self.teacher_stop = teacher_stop

    def sample(self, n: int) -> list[Item]:
        tasks = [random_task(self.rng, self.rng.choice(self.levels)) for _ in range(n)]
        if self.teacher_stop is None:
            return tasks
        return [self._teacher_move(task, self.teacher_stop) for task in tasks]

    def _teacher_move(self, task: Item, stop: str) -> Item:
        p = task.payload
        low, high, text = p["low"], p["high"], task.prompt
        for _ in range(self.rng.randrange(p["max_turns"])):
            guess = flawed_guess(low, high, self.rng)
            reply, low, high = judge_guess(str(guess), low, high, p["secret"])
            if reply == "=":
                break
            text += f"{guess}{stop}{reply}"
        answer = str(flawed_guess(low, high, self.rng))
        return Item(text, p, FAMILY, task.difficulty, answer)

    def observe(self, items: Sequence[Item], results: Sequence[RewardResult]) -> None:
        pass

    def state_dict(self) -> dict[str, Any]:
        return {"rng": self.rng.getstate()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))


def held_out(n: int = 256, min_level: int = 3, max_level: int = 6, seed: int = 1234) -> list[Item]:
    """A fixed evaluation set (its seed differs from any training sampler's)."""
    return GuessSampler(min_level, max_level, seed=seed).sample(n)


def corpus(n: int = 2000, seed: int = 0) -> list[str]:
    """Text to train the tiny tokenizer on: transcripts of the teacher's games."""
    sampler = GuessSampler(LEVELS[0], LEVELS[-1], seed=seed, teacher_stop="")
    return [item.prompt + (item.answer or "") for item in sampler.sample(n)]

"""Environments: the catalogue of kinds, and an episode played by a script in the playground.

A scripted episode is a conversation the user writes the assistant's side of: each message is
stepped through the environment (tool calls run in the sandbox or the SQL box, under the
kind's limits), and the final state is judged by a verifier (an inline spec, a saved version,
or the family's default), turn verdicts included, exactly as training judges an episode.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from django.conf import settings
from django.db.models import QuerySet

from crucible.accounts.models import Team
from crucible.api.field_errors import field_errors
from tasks_app.environments.base import (
    Environment,
    Message,
    Opening,
    StepResult,
    Tool,
    run_episode,
)
from tasks_app.environments.judging import judge_episode
from tasks_app.environments.registry import (
    UnknownEnvironment,
    describe_environments,
    load_environment,
)
from tasks_app.families.base import Task
from tasks_app.families.common import ParamsInvalid
from tasks_app.models import PoolTask
from tasks_app.verifiers import spec_hash

from .verifiers import caller_context, checked_spec, default_spec, saved_spec

MAX_SCRIPT_TURNS = 12
"""Assistant messages in one scripted episode: each may run tools for seconds, in a request."""
MAX_MESSAGE_CHARS = 20_000
"""One scripted message: a program or a query and some reasoning."""


def extra_environments() -> dict[str, str]:
    return dict(settings.ENVIRONMENT_KINDS)


def environment_kinds() -> list[dict[str, Any]]:
    return describe_environments(extra_environments())


def environment_module(kind: str) -> ModuleType:
    try:
        return load_environment(kind, extra_environments())
    except UnknownEnvironment as exc:
        raise field_errors([("environment", str(exc.args[0]))]) from exc


class _Recorded(Environment):
    """The environment, with each turn's answer kept for the conversation view; a task it
    cannot open is the caller's 400, not a 500."""

    def __init__(self, env: Environment) -> None:
        self.env = env
        self.results: list[StepResult] = []

    def reset(self, task: Task) -> Opening:
        try:
            return self.env.reset(task)
        except (KeyError, TypeError, ValueError) as exc:
            why = f"the environment cannot open an episode on it ({type(exc).__name__}: {exc})"
            raise field_errors([("expected", why)]) from exc

    def step(self, message: Message) -> StepResult:
        result = self.env.step(message)
        self.results.append(result)
        return result

    def final_state(self) -> dict[str, Any]:
        return self.env.final_state()


def _scripted(script: Sequence[str]) -> Any:
    replies = iter(script)

    def policy(messages: Sequence[Message], tools: tuple[Tool, ...]) -> Message:
        return Message("assistant", next(replies))

    return policy


def play_episode(
    teams: QuerySet[Team],
    *,
    environment: str,
    script: Sequence[str],
    spec: Any = None,
    verifier_version: int | None = None,
    expected: dict[str, Any] | None = None,
    prompt: str = "",
    task: int | None = None,
    context: dict[str, Any] | None = None,
    params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Step ``script`` (assistant messages) through one episode and judge its final state."""
    module = environment_module(environment)
    if verifier_version is not None:
        spec = saved_spec(teams, verifier_version)
    spec = checked_spec(spec if spec is not None else default_spec(module.family))
    episode_task = _task(teams, module, task, expected or {}, prompt)
    env = _Recorded(_made(module, params))
    budget = module.default_limits.max_turns  # as in training: turns past it never run
    limits = dataclasses.replace(module.default_limits, max_turns=min(len(script), budget))
    started = time.perf_counter()
    episode = run_episode(env, episode_task, _scripted(script), limits)
    context = {"prompt": episode_task.prompt, **caller_context(context)}
    verdict = judge_episode(
        spec, episode.final_state, episode.errors, episode_task.expected, context=context
    )
    ended_by = episode.ended_by
    if ended_by == "max_turns" and len(script) < budget:
        ended_by = "script"
    return {
        "environment": module.name,
        "messages": _with_verdicts([m.to_dict() for m in episode.messages], env.results),
        "tools": [t.to_dict() for t in episode.tools],
        "turns": episode.turns,
        "turn_budget": budget,
        "ended_by": ended_by,
        "final_state": episode.final_state,
        "verdict": verdict.to_dict(),
        "seconds": time.perf_counter() - started,
        "spec_hash": spec_hash(spec),
    }


def _with_verdicts(
    messages: list[dict[str, Any]], results: list[StepResult]
) -> list[dict[str, Any]]:
    """Each assistant message carries its turn's verdict: the error (None when clean) and
    what the environment noted (the tools' statuses, the move made)."""
    turns = iter(results)
    for message in messages:
        if message["role"] == "assistant":
            result = next(turns, None)
            if result is not None:
                message["verdict"] = {"error": result.error, "info": result.info}
    return messages


def _made(module: ModuleType, params: Mapping[str, Any] | None) -> Environment:
    try:
        env = module.make(dict(params or {}))
    except ParamsInvalid as exc:
        raise field_errors(
            (f"params.{k}" if k != "params" else k, v) for k, v in exc.errors.items()
        ) from exc
    assert isinstance(env, Environment)
    return env


def _task(
    teams: QuerySet[Team],
    module: ModuleType,
    task_id: int | None,
    expected: dict[str, Any],
    prompt: str,
) -> Task:
    """A pool task of the caller's teams (of the environment's family), or the inline data."""
    if task_id is None:
        return Task(module.family, prompt, expected)
    row = (
        PoolTask.objects.filter(pk=task_id, version__family__team__in=teams)
        .select_related("version__family")
        .first()
    )
    if row is None:
        raise field_errors([("task", f"no pool task {task_id} in your teams")])
    kind = row.version.family.kind
    if kind != module.family:
        why = f"is a {kind} task; the {module.name} environment plays {module.family} tasks"
        raise field_errors([("task", why)])
    return Task(kind, row.prompt, row.expected, row.difficulty, row.source_id, row.meta)

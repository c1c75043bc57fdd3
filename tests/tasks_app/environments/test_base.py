"""The environment contract: messages in the chat shape, limits, and the scripted episode loop."""

import pytest

from tasks_app.environments.base import (
    Environment,
    EpisodeLimits,
    Message,
    Opening,
    StepResult,
    Tool,
    ToolCall,
    run_episode,
)
from tasks_app.families.base import Task


class Echo(Environment):
    """Answers every message with its length; done when the model says "stop"."""

    def reset(self, task: Task) -> Opening:
        self.said: list[str] = []
        return Opening((Message("user", task.prompt),), (Tool("count", "counts letters"),))

    def step(self, message: Message) -> StepResult:
        self.said.append(message.content)
        reply = Message("tool", str(len(message.content)), tool_call_id="1", name="count")
        return StepResult((reply,), done=message.content == "stop")

    def final_state(self) -> dict:
        return {"answer": self.said[-1] if self.said else ""}


TASK = Task("echo", "say stop", {"answer": "stop"})


def test_it_writes_messages_in_the_chat_shape_and_reads_them_back():
    call = ToolCall("run_python", {"code": "print(1)"}, "call-1")
    message = Message("assistant", "", (call,))
    data = message.to_dict()
    assert data["tool_calls"][0]["function"] == {
        "name": "run_python",
        "arguments": '{"code": "print(1)"}',
    }
    assert Message.from_dict(data) == message
    tool = Message("tool", "1", tool_call_id="call-1", name="run_python")
    assert Message.from_dict(tool.to_dict()) == tool


def test_it_names_the_field_of_a_bad_tool_call():
    with pytest.raises(ValueError, match="tool_calls.arguments"):
        Message.from_dict({"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{"}}]})
    with pytest.raises(ValueError, match="tool_calls.function.name"):
        ToolCall.from_dict({"function": {"arguments": "{}"}})
    with pytest.raises(ValueError, match="role"):
        Message("robot", "hi")


def test_it_describes_a_tool_as_chat_templates_take_it():
    tool = Tool("count", "counts letters", {"type": "object", "properties": {"s": {"type": "string"}}})
    assert tool.to_dict()["function"]["parameters"]["properties"]["s"] == {"type": "string"}


def test_it_rejects_limits_out_of_range_by_field():
    with pytest.raises(ValueError, match=r"limits.max_turns.*limits.max_total_tokens"):
        EpisodeLimits(max_turns=0, max_total_tokens=True).validate()
    EpisodeLimits().validate()


def test_an_episode_ends_when_the_environment_says_done():
    script = iter(["hello", "stop", "never"])
    episode = run_episode(Echo(), TASK, lambda m, t: Message("assistant", next(script)), EpisodeLimits())
    assert episode.turns == 2 and episode.ended_by == "environment"
    assert [m.role for m in episode.messages] == ["user", "assistant", "tool", "assistant", "tool"]
    assert episode.final_state == {"answer": "stop"} and episode.errors == [None, None]
    assert episode.to_dict()["tools"][0]["function"]["name"] == "count"


def test_an_episode_stops_at_its_turn_and_token_limits():
    policy = lambda m, t: Message("assistant", "go on")  # noqa: E731 (a one-line scripted policy)
    by_turns = run_episode(Echo(), TASK, policy, EpisodeLimits(max_turns=3))
    assert (by_turns.turns, by_turns.ended_by) == (3, "max_turns")
    by_tokens = run_episode(Echo(), TASK, policy, EpisodeLimits(max_total_tokens=5))
    assert (by_tokens.turns, by_tokens.ended_by) == (2, "max_total_tokens")

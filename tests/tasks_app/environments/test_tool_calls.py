"""Tool calls found in an assistant message and checked against the episode's tools."""

from tasks_app.environments.base import Message, Tool, ToolCall
from tasks_app.environments.tool_calls import (
    MAX_CALL_CHARS,
    call_text,
    parse_calls,
    truncated,
    without_calls,
)

CODE = Tool(
    "python",
    "runs code",
    {
        "type": "object",
        "properties": {"code": {"type": "string", "minLength": 1}},
        "required": ["code"],
        "additionalProperties": False,
    },
)


def parse(content: str, *calls: ToolCall):
    return parse_calls(Message("assistant", content, tuple(calls)), [CODE], turn=3)


def test_it_reads_calls_written_in_the_chat_templates_text_format():
    content = 'Let me compute.\n<tool_call>\n{"name": "python", "arguments": {"code": "print(2)"}}\n</tool_call>'
    calls, problems = parse(content)
    assert problems == []
    assert calls == [ToolCall("python", {"code": "print(2)"}, "call_3_0")]
    assert without_calls(content) == "Let me compute."


def test_it_accepts_arguments_given_as_a_json_string_like_the_openai_api():
    calls, _ = parse(
        '<tool_call>{"name": "python", "arguments": "{\\"code\\": \\"1\\"}"}</tool_call>'
    )
    assert calls[0].arguments == {"code": "1"}


def test_it_names_what_is_wrong_with_each_bad_call_without_raising():
    content = (
        "<tool_call>not json</tool_call>"
        '<tool_call>{"name": "shell", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "python", "arguments": {"code": 5}}</tool_call>'
        '<tool_call>["python"]</tool_call>'
        '<tool_call>{"name": "python", "arguments": {"code": "1"'  # cut off mid-call
    )
    calls, problems = parse(content)
    assert calls == []
    reasons = [p.reason for p in problems]
    assert reasons[0].startswith("is not JSON")
    assert reasons[1] == "names no tool of this episode: 'shell' (python)"
    assert reasons[2].startswith("python: arguments.code: 5 is not of type 'string'")
    assert reasons[3].startswith("must be an object")
    assert reasons[4].startswith("is not JSON")
    assert [p.id for p in problems] == [f"call_3_{i}" for i in range(5)]


def test_it_refuses_a_call_too_long_to_be_a_program():
    body = '{"name": "python", "arguments": {"code": "' + "x" * MAX_CALL_CHARS + '"}}'
    _, [problem] = parse(f"<tool_call>{body}</tool_call>")
    assert "longer than" in problem.reason


def test_it_prefers_structured_calls_and_keeps_their_ids():
    given = ToolCall("python", {"code": "print(1)"}, "abc")
    unknown = ToolCall("rm", {}, "")
    calls, problems = parse("<tool_call>ignored</tool_call>", given, unknown)
    assert calls == [given]
    assert problems[0].id == "call_3_1" and "'rm'" in problems[0].reason


def test_a_structured_call_written_as_text_parses_back_to_itself():
    call = ToolCall("python", {"code": "print('<tag>')"}, "call_3_0")
    assert parse(call_text(call))[0] == [call]


def test_it_says_how_much_text_it_cut():
    assert truncated("abc", 3) == "abc"
    assert truncated("abcdef", 2) == "ab\n… (4 more characters not shown)"

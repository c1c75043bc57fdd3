"""The Python tool: the model's code runs in the sandbox and only its capped output comes back."""

import pytest

from tasks_app.environments import python_tool
from tasks_app.environments.base import EpisodeLimits, Message, run_episode
from tasks_app.environments.judging import judge_episode
from tasks_app.environments.registry import describe_environment, load_environment
from tasks_app.families import common, math_word
from tasks_app.families.base import Task

TASK = math_word.from_record(
    {"prompt": "A box holds 17 rows of 23 eggs. How many eggs?", "answer": 391}
)


def call(code: str) -> str:
    return python_tool.call_text_for(code)


def scripted(*texts: str):
    replies = iter(texts)
    return lambda messages, tools: Message("assistant", next(replies))


def play(*texts: str, **params):
    env = python_tool.make(params)
    return run_episode(env, TASK, scripted(*texts), EpisodeLimits(max_turns=len(texts)))


def test_it_runs_the_models_code_and_judges_the_final_answer_with_the_family_verifier():
    episode = play(call("print(17 * 23)"), "The box holds 391 eggs.\n#### 391")
    roles = [m.role for m in episode.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert episode.messages[3].content == "391\n" and episode.messages[3].name == "python"
    assert episode.ended_by == "environment" and episode.errors == [None, None]
    verdict = judge_episode(
        math_word.default_verifier(), episode.final_state, episode.errors, TASK.expected
    )
    assert verdict.passed and verdict.reward == 1.0


def test_the_opening_offers_the_tool_and_says_how_to_answer():
    opening = python_tool.make().reset(TASK)
    assert [t.name for t in opening.tools] == ["python"]
    assert "<tool_call>" in opening.messages[0].content and "####" in opening.messages[0].content
    assert opening.messages[1].content == TASK.prompt


def test_a_failing_program_is_a_tool_error_showing_its_own_traceback_only():
    episode = play(call("x = 1\n1 / 0"), "#### 1")
    answer = episode.messages[3].content
    assert episode.errors[0] == "tool_error"
    assert 'File "<program>", line 2' in answer and "ZeroDivisionError" in answer
    assert "sandbox" not in answer and "/" + "work" not in answer


def test_a_program_past_its_time_limit_is_stopped():
    episode = play(call("while True: pass"), "#### 0", timeout_s=0.5)
    assert episode.errors[0] == "tool_error" and "time limit" in episode.messages[3].content


def test_output_is_cut_to_the_limit():
    episode = play(call("print('x' * 50_000)"), "#### 0", output_chars=500)
    text = episode.messages[3].content
    assert episode.errors[0] is None
    assert len(text) < 600 and text.endswith("(output cut at 500 characters)")


def test_the_code_cannot_reach_the_network_or_the_platforms_secrets():
    code = (
        "import os, socket\nprint(sorted(os.environ))\nsocket.create_connection(('1.1.1.1', 53), 1)"
    )
    episode = play(call(code), "#### 0")
    text = episode.messages[3].content
    assert episode.errors[0] == "tool_error"
    assert "SECRET" not in text and "DATABASE_URL" not in text


def test_a_call_that_does_not_parse_is_answered_and_counted():
    episode = play('<tool_call>{"name": "python"}</tool_call>', "#### 391")
    assert episode.errors == ["tool_call_parse", None]
    assert episode.messages[3].content.startswith("tool call refused: python: arguments: 'code'")
    assert episode.final_state["tool_call_problems"] == 1


def test_an_episode_out_of_turns_has_no_answer_to_judge():
    episode = play(call("print(1)"))
    assert episode.ended_by == "max_turns" and episode.final_state["answered"] is False
    verdict = judge_episode(
        math_word.default_verifier(), episode.final_state, episode.errors, TASK.expected
    )
    assert not verdict.passed and verdict.error_type == "format_error"


def test_bad_params_name_the_field():
    with pytest.raises(common.ParamsInvalid) as caught:
        python_tool.make({"timeout_s": 999})
    assert "timeout_s" in caught.value.errors


def test_it_plays_a_task_given_as_structured_calls_too():
    env = python_tool.make()
    env.reset(Task("math-word", "2+2?", {"answer": 4}))
    result = env.step(
        Message.from_dict(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c1",
                        "function": {"name": "python", "arguments": '{"code": "print(2+2)"}'},
                    }
                ],
            }
        )
    )
    assert result.messages[0].tool_call_id == "c1" and result.messages[0].content == "4\n"


def test_both_tool_kinds_are_registered_for_their_families():
    kinds = {
        name: describe_environment(load_environment(name)) for name in ("python-tool", "sql-tool")
    }
    assert (
        kinds["python-tool"]["family"] == "math-word" and kinds["sql-tool"]["family"] == "sql-query"
    )
    assert kinds["sql-tool"]["tools"][0]["function"]["name"] == "sql"

"""The SQL tool: queries run read-only on the task's database in the SQL box; rows come back."""

from tasks_app.environments import sql_tool
from tasks_app.environments.base import EpisodeLimits, Message, ToolCall, run_episode
from tasks_app.environments.judging import judge_episode
from tasks_app.environments.tool_calls import call_text
from tasks_app.families import sql_query

[TASK] = sql_query.generate(1, difficulty=2, seed=7)


def query(sql: str) -> str:
    return call_text(ToolCall("sql", {"query": sql}))


def play(*texts: str, **params):
    replies = iter(texts)
    policy = lambda messages, tools: Message("assistant", next(replies))  # noqa: E731
    return run_episode(sql_tool.make(params), TASK, policy, EpisodeLimits(max_turns=len(texts)))


def answer(sql: str) -> str:
    return f"```sql\n{sql}\n```"


def test_the_model_sees_rows_then_its_final_query_is_judged_by_the_family_verifier():
    episode = play(
        query("SELECT name, salary FROM employees"), answer(TASK.expected["reference_sql"])
    )
    rows = episode.messages[3].content
    assert rows.startswith(f"{sql_query.ROWS[2]} row(s):") and '["' in rows
    verdict = judge_episode(
        sql_query.default_verifier(), episode.final_state, episode.errors, TASK.expected
    )
    assert verdict.passed and episode.errors == [None, None]


def test_a_wrong_final_query_fails():
    episode = play(answer("SELECT name FROM employees"))
    verdict = judge_episode(
        sql_query.default_verifier(), episode.final_state, episode.errors, TASK.expected
    )
    assert not verdict.passed and verdict.error_type == "wrong_answer"


def test_writes_and_bad_sql_are_tool_errors_and_the_database_is_untouched():
    episode = play(
        query("DELETE FROM employees"),
        query("SELEKT 1"),
        query("SELECT COUNT(*) FROM employees"),
        answer("SELECT 1"),
    )
    assert episode.errors[:3] == ["tool_error", "tool_error", None]
    assert episode.messages[3].content == "error: only a read-only SELECT is allowed"
    assert "syntax error" in episode.messages[5].content
    assert episode.messages[7].content == f"1 row(s):\n[{sql_query.ROWS[2]}]"


def test_it_shows_only_the_first_rows():
    episode = play(
        query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n"),
        answer("SELECT 1"),
        rows_shown=3,
    )
    assert episode.messages[3].content == "more than 3 rows; the first 3:\n[1]\n[2]\n[3]"


def test_a_query_past_its_time_limit_is_stopped():
    slow = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT COUNT(*) FROM n"
    episode = play(query(slow), answer("SELECT 1"), timeout_s=0.3)
    assert episode.errors[0] == "tool_error" and "time limit" in episode.messages[3].content

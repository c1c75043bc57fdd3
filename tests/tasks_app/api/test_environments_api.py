"""Environment kinds, and episodes played by a script in the verifier playground."""

import jsonschema
import pytest

from tasks_app.environments.python_tool import call_text_for
from tasks_app.services import pools
from tests.crucible.test_api_schema import documented

pytestmark = pytest.mark.django_db
URL = "/api/v1/verifiers/playground/episode/"
EGGS = "A box holds 17 rows of 23 eggs. How many eggs?"


def play(api, **body):
    return api.post(URL, body, format="json")


@pytest.fixture
def sql_task(owner, team):
    family = pools.create_family(owner, team, name="Payroll", slug="payroll", kind="sql-query")
    tasks = pools.generated_tasks(family, {2: 1}, seed=0)
    version = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]
    return version.tasks.get()


def test_it_lists_the_environment_kinds_with_their_tools_and_families(api, openapi):
    response = api.get("/api/v1/environment-kinds/")
    jsonschema.validate(response.json(), documented(openapi, "/api/v1/environment-kinds/", "get"))
    kinds = {k["name"]: k for k in response.json()}
    assert kinds["python-tool"]["family"] == "math-word"
    assert kinds["sql-tool"]["tools"][0]["function"]["parameters"]["required"] == ["query"]


def test_it_plays_a_scripted_episode_and_returns_the_conversation_with_turn_verdicts(
    api, team, openapi
):
    script = [call_text_for("print(17 * 23)"), '<tool_call>{"name": "py"}</tool_call>', "#### 391"]
    response = play(
        api, environment="python-tool", script=script, prompt=EGGS, expected={"answer": 391}
    )
    assert response.status_code == 200, response.json()
    jsonschema.validate(response.json(), documented(openapi, URL, "post"))
    episode = response.json()
    roles = [m["role"] for m in episode["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert episode["messages"][3]["content"] == "391\n"
    turns = [m["verdict"]["error"] for m in episode["messages"] if m["role"] == "assistant"]
    assert turns == [None, "tool_call_parse", None]
    assert episode["ended_by"] == "environment" and episode["turns"] == 3
    verdict = episode["verdict"]
    assert verdict["passed"] is True and verdict["parts"]["tool_format"] == pytest.approx(2 / 3)


def test_it_judges_with_the_given_spec_and_its_turn_weights(api, team):
    spec = {
        "extract": "final_answer_or_last_number",
        "layers": [{"kind": "numeric_match", "name": "answer"}],
        "reward": {"weights": {"outcome": 1.0, "tool_success": 0.5}},
    }
    script = [call_text_for("1/0"), "#### 391"]
    episode = play(
        api, environment="python-tool", script=script, spec=spec, expected={"answer": 391}
    ).json()
    assert episode["verdict"]["reward"] == pytest.approx(1.0 + 0.5 * 0.5)
    assert "ZeroDivisionError" in episode["messages"][3]["content"]


def test_it_plays_a_pool_task_of_the_environments_family(api, team, sql_task):
    reference = sql_task.expected["reference_sql"]
    script = [
        '<tool_call>{"name": "sql", "arguments": {"query": "SELECT COUNT(*) FROM employees"}}</tool_call>'
    ]
    episode = play(
        api, environment="sql-tool", task=sql_task.id, script=[*script, f"```sql\n{reference}\n```"]
    ).json()
    assert episode["messages"][1]["content"] == sql_task.prompt
    assert episode["messages"][3]["content"].startswith("1 row(s):")
    assert episode["verdict"]["passed"] is True


def test_a_script_shorter_than_the_turn_budget_says_so(api, team):
    episode = play(
        api, environment="python-tool", script=[call_text_for("print(1)")], expected={"answer": 1}
    ).json()
    assert episode["ended_by"] == "script" and episode["verdict"]["error_type"] == "format_error"


def test_it_names_the_field_at_fault(api, team, client_for, outsider, sql_task):
    def fields(**body):
        response = play(api, **body)
        assert response.status_code == 400, response.json()
        return [e["field"] for e in response.json()["errors"]]

    one = ["#### 1"]
    assert fields(environment="shell", script=one) == ["environment"]
    assert fields(environment="python-tool", script=[]) == ["script"]
    assert fields(environment="python-tool", script=one * 13) == ["script"]
    assert fields(environment="python-tool", script=one, params={"timeout_s": 99}) == [
        "params.timeout_s"
    ]
    assert fields(environment="python-tool", script=one, task=sql_task.id) == ["task"]
    assert fields(environment="guess-number", script=one, expected={"low": "x"}) == ["expected"]
    assert fields(environment="python-tool", script=one, spec={"extract": "nope", "layers": []})
    outsider_answer = client_for(outsider).post(
        URL, {"environment": "sql-tool", "script": one, "task": sql_task.id}, format="json"
    )
    assert outsider_answer.status_code == 400
    assert outsider_answer.json()["errors"][0]["field"] == "task"


def test_turns_past_the_kinds_budget_never_run(api, team):
    script = [call_text_for(f"print({i})") for i in range(6)]
    episode = play(api, environment="python-tool", script=script, expected={"answer": 1}).json()
    assert episode["turns"] == episode["turn_budget"] == 4 and episode["ended_by"] == "max_turns"

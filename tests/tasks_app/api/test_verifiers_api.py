import sqlite3
import time

import pytest

from crucible.accounts.models import AuditEvent
from tasks_app.models import LabelledExample, Verifier, VerifierVersion
from tasks_app.services import pools
from tasks_app.verifiers import canonical
from tests.tasks_app.families import echo_kind

pytestmark = pytest.mark.django_db

NUMERIC = {
    "extract": "last_number",
    "layers": [{"kind": "numeric_match", "params": {"abs_tol": 0.01}}],
}


def create(api, **body):
    return api.post(
        "/api/v1/verifiers/", {"team": "reasoning", "name": "Answer check", **body}, format="json"
    )


def test_it_creates_a_verifier_from_a_family_kinds_default(api, team):
    response = create(api, family_kind="math-word")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["slug"] == "answer-check" and body["latest_version"]["number"] == 1
    assert body["latest_version"]["spec"]["layers"]
    assert AuditEvent.objects.filter(action="verifier.version_created").count() == 1


def test_it_names_the_bad_field_of_an_invalid_spec_and_saves_nothing(api, team):
    spec = {
        "extract": "last_number",
        "layers": [{"kind": "numeric_match", "params": {"abs_tol": -1}}],
    }
    response = create(api, spec=spec)
    assert response.status_code == 400
    fields = [e["field"] for e in response.json()["errors"]]
    assert any(f.startswith("spec.layers[0].params") for f in fields), fields
    assert Verifier.objects.count() == 0


def test_it_versions_specs_and_reuses_an_identical_one(api, team):
    verifier_id = create(api, spec=NUMERIC).json()["id"]
    reordered = {"layers": NUMERIC["layers"], "extract": "last_number"}
    same = api.post(
        f"/api/v1/verifiers/{verifier_id}/versions/", {"spec": reordered}, format="json"
    )
    assert same.status_code == 200 and same.json()["number"] == 1
    changed = {**NUMERIC, "layers": [{"kind": "numeric_match", "params": {"abs_tol": 0.5}}]}
    new = api.post(
        f"/api/v1/verifiers/{verifier_id}/versions/",
        {"spec": changed, "note": "looser"},
        format="json",
    )
    assert new.status_code == 201 and new.json()["number"] == 2
    assert [v["number"] for v in api.get(f"/api/v1/verifiers/{verifier_id}/versions/").json()] == [
        2,
        1,
    ]


def test_it_never_edits_a_version_in_place(api, team):
    from tasks_app.models.base import FrozenError

    create(api, spec=NUMERIC)
    version = VerifierVersion.objects.get()
    version.note = "rewritten"
    with pytest.raises(FrozenError):
        version.save()


def test_it_reports_false_positive_and_negative_rates_on_labelled_examples(api, team):
    verifier_id = create(api, spec=NUMERIC).json()["id"]
    url = f"/api/v1/verifiers/{verifier_id}/examples/"
    for response, answer, label in [
        ("It is 18", 18, "good"),
        ("so 18.004", 18, "good"),
        ("maybe 17", 18, "bad"),
        ("42 I think, no 18", 18, "good"),
        ("18 or 19", 18, "bad"),
    ]:
        assert (
            api.post(
                url,
                {"response": response, "expected": {"answer": answer}, "label": label},
                format="json",
            ).status_code
            == 201
        )
    report = api.post(f"/api/v1/verifiers/{verifier_id}/versions/1/evaluate/").json()
    assert report["examples"] == 5
    assert report["false_positives"] == 0 and report["false_negative_rate"] == 0.0
    assert report["false_positive_rate"] == 0.0


def test_it_judges_a_response_in_the_playground_with_per_layer_timing(api, team):
    body = {
        "spec": {
            "extract": "full_text",
            "layers": [{"kind": "json_parse"}, {"kind": "json_facts"}],
        },
        "response": '{"name": "Ada"}',
        "expected": {"facts": {"name": "Ada"}},
    }
    verdict = api.post("/api/v1/verifiers/playground/", body, format="json").json()
    assert verdict["passed"] is True and verdict["reward"] == 1.0
    assert [layer["kind"] for layer in verdict["layers"]][-2:] == ["json_parse", "json_facts"]
    assert all(layer["seconds"] >= 0 for layer in verdict["layers"])


def test_it_lists_layer_kinds_for_the_builder(api):
    kinds = {k["kind"]: k for k in api.get("/api/v1/verifier-kinds/").json()["layers"]}
    assert kinds["model_judge"]["biased"] is True and kinds["unit_tests"]["stage"] == "semantic"


def test_it_keeps_verifiers_inside_the_team(api, client_for, team, outsider):
    verifier_id = create(api, spec=NUMERIC).json()["id"]
    other = client_for(outsider)
    assert other.get(f"/api/v1/verifiers/{verifier_id}/").status_code == 404
    assert (
        other.post(
            f"/api/v1/verifiers/{verifier_id}/versions/", {"spec": NUMERIC}, format="json"
        ).status_code
        == 404
    )
    assert create(other, spec=NUMERIC).status_code == 404


def test_it_lets_viewers_read_but_not_write(api, client_for, team, teammate):
    verifier_id = create(api, spec=NUMERIC).json()["id"]
    viewer = client_for(teammate)
    assert viewer.get(f"/api/v1/verifiers/{verifier_id}/").status_code == 200
    assert (
        viewer.patch(f"/api/v1/verifiers/{verifier_id}/", {"name": "x"}, format="json").status_code
        == 403
    )
    assert create(viewer, spec=NUMERIC).status_code == 403


def test_it_reports_the_sandboxs_active_isolation_layers(api, team):
    caps = api.get("/api/v1/sandbox/").json()
    assert set(caps["namespaces"]) >= {"pid", "mount", "network"}
    assert "warnings" in caps and isinstance(caps["prefork"], bool)


def test_it_runs_unit_tests_in_the_sandbox_from_the_playground(api):
    spec = {"extract": "python_block", "layers": [{"kind": "python_ast"}, {"kind": "unit_tests"}]}
    expected = {
        "entry_point": "add",
        "tests": "def check(candidate):\n    assert candidate(2, 3) == 5\n",
    }
    good = api.post(
        "/api/v1/verifiers/playground/",
        {
            "spec": spec,
            "expected": expected,
            "response": "```python\ndef add(a, b):\n    return a + b\n```",
        },
        format="json",
    ).json()
    bad = api.post(
        "/api/v1/verifiers/playground/",
        {
            "spec": spec,
            "expected": expected,
            "response": "```python\ndef add(a, b):\n    return a - b\n```",
        },
        format="json",
    ).json()
    assert good["passed"] is True
    assert bad["passed"] is False and bad["error_type"] == "wrong_answer"


@pytest.mark.slow
def test_it_calibrates_a_model_judge_on_labelled_examples(api, team, judge_model_dir):
    from tests.tasks_app.verifiers.conftest import JUDGE_TEMPLATE

    spec = {
        "extract": "full_text",
        "layers": [
            {
                "kind": "model_judge",
                "name": "judge",
                "params": {
                    "model_path": str(judge_model_dir),
                    "prompt_template": JUDGE_TEMPLATE,
                    "yes_token": " yes",
                    "no_token": " no",
                },
            }
        ],
    }
    verifier_id = create(api, spec=spec).json()["id"]
    url = f"/api/v1/verifiers/{verifier_id}/"
    assert (
        api.post(f"{url}versions/1/calibrate/", {}, format="json").json()["errors"][0]["field"]
        == "examples"
    )
    for n in "1234":
        api.post(
            f"{url}examples/",
            {"response": f"the answer is {n} right", "label": "good"},
            format="json",
        )
        api.post(
            f"{url}examples/",
            {"response": f"the answer is {n} wrong", "label": "bad"},
            format="json",
        )
    report = api.post(f"{url}versions/1/calibrate/", {}, format="json").json()
    assert report["false_positives"] == 0 and report["false_negatives"] == 0, report
    assert report["spec"]["layers"][0]["params"]["threshold"] == report["threshold"]
    saved = api.post(
        f"{url}versions/", {"spec": report["spec"], "note": "calibrated"}, format="json"
    )
    assert saved.status_code == 201


def test_it_refuses_a_playground_schema_that_attaches_the_app_database(api, owner, tmp_path):
    # The embedded default keeps the app in one SQLite file; a copy of its users table stands in.
    app_db = tmp_path / "db.sqlite3"
    with sqlite3.connect(app_db) as conn:
        conn.execute("CREATE TABLE auth_user (username TEXT, is_superuser BOOL)")
        conn.execute("INSERT INTO auth_user VALUES (?, 0)", [owner.username])
    hostile = (
        f"ATTACH DATABASE '{app_db}' AS app;"
        f"UPDATE app.auth_user SET is_superuser = 1 WHERE username = '{owner.username}';"
        "CREATE TABLE t (x);"
    )
    body = {
        "spec": {"extract": "full_text", "layers": [{"kind": "sql_parse"}, {"kind": "sql_result"}]},
        "response": "SELECT x FROM t",
        "expected": {"schema_sql": hostile, "reference_sql": "SELECT x FROM t"},
    }
    response = api.post("/api/v1/verifiers/playground/", body, format="json")
    assert response.status_code == 200, response.json()
    verdict = response.json()
    assert verdict["passed"] is False and verdict["error_type"] == "verifier_error"
    assert verdict["layers"][1]["detail"].startswith("schema_sql:")
    with sqlite3.connect(app_db) as conn:
        assert conn.execute("SELECT is_superuser FROM auth_user").fetchall() == [(0,)]
    owner.refresh_from_db()
    assert not owner.is_superuser


def test_it_refuses_a_playground_spec_of_more_layers_than_the_cap(api, team):
    spec = {"extract": "full_text", "layers": [{"kind": "json_parse"}] * 33}
    body = {"spec": spec, "response": "{}"}
    response = api.post("/api/v1/verifiers/playground/", body, format="json")
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error["field"] == "spec.layers" and error["message"] == "at most 32 layers, got 33"


def test_it_refuses_playground_data_past_the_size_limits(api, team):
    body = {"spec": NUMERIC, "response": "x" * 200_001, "expected": {"answer": "9" * 1_100_000}}
    response = api.post("/api/v1/verifiers/playground/", body, format="json")
    assert response.status_code == 400
    errors = {e["field"]: e["message"] for e in response.json()["errors"]}
    assert set(errors) == {"response", "expected"}
    assert "at most 1048576 bytes" in errors["expected"]


def test_it_holds_at_most_a_hundred_labelled_examples_per_verifier(api, team):
    verifier = Verifier.objects.get(pk=create(api, spec=NUMERIC).json()["id"])
    LabelledExample.objects.bulk_create(
        LabelledExample(verifier=verifier, response=f"{n}", expected={"answer": n}, label="good")
        for n in range(100)
    )
    url = f"/api/v1/verifiers/{verifier.pk}/examples/"
    body = {"response": "It is 18", "expected": {"answer": 18}, "label": "good"}
    response = api.post(url, body, format="json")
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error["field"] == "examples" and "at most 100" in error["message"]
    assert verifier.examples.count() == 100


def test_it_refuses_a_labelled_example_past_the_size_limits(api, team):
    verifier_id = create(api, spec=NUMERIC).json()["id"]
    body = {"response": "x" * 200_001, "expected": {"answer": "9" * 1_100_000}, "label": "bad"}
    response = api.post(f"/api/v1/verifiers/{verifier_id}/examples/", body, format="json")
    assert response.status_code == 400
    assert {e["field"] for e in response.json()["errors"]} == {"response", "expected"}
    assert LabelledExample.objects.count() == 0


def test_it_names_an_uncompilable_pattern_in_a_playground_spec(api, team):
    body = {
        "spec": {
            "extract": "full_text",
            "layers": [
                {"kind": "json_parse"},
                {"kind": "regex", "params": {"pattern": "(?:(?:a{1000}){1000}){10}"}},
            ],
        },
        "response": "{}",
    }
    response = api.post("/api/v1/verifiers/playground/", body, format="json")
    assert response.status_code == 400
    errors = {e["field"]: e["message"] for e in response.json()["errors"]}
    assert "repeats too much" in errors["spec.layers[1].params.pattern"], errors


def test_it_stops_a_slow_pattern_in_the_playground_with_a_timeout_verdict(api, team):
    body = {
        "spec": {
            "extract": "full_text",
            "layers": [{"kind": "forbidden", "params": {"patterns": ["(a|aa)+$"]}}],
        },
        "response": "a" * 40 + "b",
    }
    started = time.monotonic()
    verdict = api.post("/api/v1/verifiers/playground/", body, format="json").json()
    assert time.monotonic() - started < 5.0
    assert verdict["passed"] is False and verdict["error_type"] == "timeout"


ECHO_KIND = {"echo": "tests.tasks_app.families.echo_kind"}


def test_it_creates_a_verifier_from_the_default_of_a_kind_plugged_in_by_setting(
    api, team, settings
):
    settings.TASK_FAMILY_KINDS = ECHO_KIND
    response = create(api, family_kind="echo")
    assert response.status_code == 201, response.json()
    spec = response.json()["latest_version"]["spec"]
    assert spec == canonical(echo_kind.default_verifier())


def test_it_names_family_kind_when_no_such_kind_is_registered(api, team):
    response = create(api, family_kind="echo")
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error["field"] == "family_kind" and "unknown family kind 'echo'" in error["message"]
    assert Verifier.objects.count() == 0


OUT_OF_ORDER = {
    "extract": "full_text",
    "layers": [
        {"kind": "json_facts", "name": "facts"},
        {"kind": "json_parse", "name": "parses"},
    ],
}


def test_it_warns_when_a_version_runs_a_syntax_layer_after_a_semantic_one(api, team):
    body = create(api, spec=OUT_OF_ORDER).json()
    assert body["latest_version"]["warnings"] == [
        "'parses' (syntax) runs after 'facts' (semantics): it is skipped whenever facts fails"
    ]
    in_order = {**OUT_OF_ORDER, "layers": OUT_OF_ORDER["layers"][::-1]}
    version = api.post(
        f"/api/v1/verifiers/{body['id']}/versions/", {"spec": in_order}, format="json"
    ).json()
    assert version["warnings"] == []


@pytest.fixture
def pool_task(owner, team):
    family = pools.create_family(owner, team, name="Sums", slug="sums", kind="arithmetic")
    tasks = pools.generated_tasks(family, {1: 3}, seed=0)
    version = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]
    return version.tasks.order_by("position").first()


ANSWER_SPEC = {
    "extract": "final_answer_or_last_number",
    "layers": [{"kind": "numeric_match", "name": "answer"}],
}


def test_it_runs_a_saved_version_on_a_pool_task_in_the_playground(api, team, pool_task):
    version_id = create(api, spec=ANSWER_SPEC).json()["latest_version"]["id"]
    answer = pool_task.expected["answer"]
    body = {"verifier_version": version_id, "task": pool_task.id, "response": f"Answer: {answer}"}
    verdict = api.post("/api/v1/verifiers/playground/", body, format="json")
    assert verdict.status_code == 200, verdict.json()
    assert verdict.json()["passed"] is True
    wrong = {**body, "response": f"Answer: {int(answer) + 1}"}
    verdict = api.post("/api/v1/verifiers/playground/", wrong, format="json").json()
    assert verdict["passed"] is False and verdict["error_type"] == "wrong_answer"


def test_it_refuses_another_teams_version_and_task_in_the_playground(
    api, client_for, team, outsider, pool_task
):
    version_id = create(api, spec=ANSWER_SPEC).json()["latest_version"]["id"]
    other = client_for(outsider)
    url = "/api/v1/verifiers/playground/"
    body = {"verifier_version": version_id, "response": "Answer: 1", "expected": {"answer": 1}}
    response = other.post(url, body, format="json")
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error["field"] == "verifier_version" and "in your teams" in error["message"]
    body = {"spec": ANSWER_SPEC, "task": pool_task.id, "response": "Answer: 1"}
    response = other.post(url, body, format="json")
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error["field"] == "task" and "in your teams" in error["message"]


def test_it_asks_the_playground_for_one_spec_and_one_source_of_expected_data(api, team, pool_task):
    url = "/api/v1/verifiers/playground/"
    neither = api.post(url, {"response": "1"}, format="json")
    assert [e["field"] for e in neither.json()["errors"]] == ["spec"]
    version_id = create(api, spec=ANSWER_SPEC).json()["latest_version"]["id"]
    both = {"spec": ANSWER_SPEC, "verifier_version": version_id, "response": "1"}
    assert [e["field"] for e in api.post(url, both, format="json").json()["errors"]] == [
        "verifier_version"
    ]
    twice = {"spec": ANSWER_SPEC, "task": pool_task.id, "expected": {}, "response": "1"}
    assert [e["field"] for e in api.post(url, twice, format="json").json()["errors"]] == ["task"]


def test_it_fails_a_refusal_before_the_answer_under_a_forbidden_pattern(api, team):
    spec = {
        "extract": "final_answer_or_last_number",
        "layers": [
            {"kind": "numeric_match", "name": "answer"},
            {"kind": "forbidden", "name": "no_refusal", "params": {"patterns": ["(?i)cannot"]}},
        ],
        "reward": {"weights": {"outcome": 0.5, "constraint": 0.5}},
    }
    body = {
        "spec": spec,
        "response": "As an AI I cannot do arithmetic. Answer: 1149",
        "expected": {"answer": "1149"},
    }
    verdict = api.post("/api/v1/verifiers/playground/", body, format="json").json()
    assert verdict["passed"] is False and verdict["error_type"] == "forbidden"
    assert verdict["parts"]["constraint"] == 0.0 and verdict["reward"] == 0.5
    assert verdict["layers"][-1]["detail"] == "forbidden in the response: (?i)cannot"


def test_it_says_in_the_catalogue_what_a_forbidden_layer_checks(api):
    kinds = {k["kind"]: k for k in api.get("/api/v1/verifier-kinds/").json()["layers"]}
    forbidden = kinds["forbidden"]
    assert "whole response by default" in forbidden["description"]
    assert forbidden["params_schema"]["properties"]["scope"]["default"] == "response"
    assert forbidden["params_schema"]["properties"]["target"]["deprecated"] is True


def test_it_runs_playground_tests_inside_the_sandbox_not_in_the_web_process(api, settings):
    # The reported attack: tests sent to the playground read the platform's secret key and
    # reported the process's uid and a database connection in the assertion message.
    secret = settings.VAR_DIR / "secret_key"
    if not secret.exists():
        secret.write_text("platform-secret-key-for-this-test")
    probe = (
        "import os\n"
        "def check(candidate):\n"
        "    candidate(1)\n"
        "    found = [os.getuid(), sorted(os.environ)]\n"
        "    try:\n"
        f"        found.append(open({str(secret)!r}).read()[:12])\n"
        "    except OSError as exc:\n"
        "        found.append(type(exc).__name__)\n"
        "    assert False, repr(found)\n"
    )
    body = {
        "spec": {"extract": "python_block", "layers": [{"kind": "unit_tests"}]},
        "expected": {"entry_point": "inc", "tests": probe},
        "response": "```python\ndef inc(x):\n    return x + 1\n```",
    }
    verdict = api.post("/api/v1/verifiers/playground/", body, format="json").json()
    text = str(verdict)
    assert verdict["passed"] is False
    assert "[65534, [], 'FileNotFoundError']" in text, text  # nobody, no environment, no file
    assert secret.read_text()[:12] not in text

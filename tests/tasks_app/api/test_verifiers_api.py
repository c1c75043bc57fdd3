import pytest

from crucible.accounts.models import AuditEvent
from tasks_app.models import Verifier, VerifierVersion

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


def test_it_reports_the_sandboxs_active_isolation_layers(api):
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

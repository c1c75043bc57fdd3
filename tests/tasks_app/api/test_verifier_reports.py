"""The verifier endpoints answer exactly as their schema documents (no key missing or extra)."""

import jsonschema
import pytest

from tests.crucible.test_api_schema import documented

pytestmark = pytest.mark.django_db

SPEC = {
    "extract": "last_number",
    "layers": [{"kind": "numeric_match", "params": {"abs_tol": 0.01}}],
}


@pytest.fixture
def verifier(api, team) -> dict:  # type: ignore[no-untyped-def]
    body = {"team": "reasoning", "name": "Answer", "spec": SPEC}
    created = api.post("/api/v1/verifiers/", body, format="json").json()
    examples = [("the answer is 4", "good"), ("it is 5", "bad"), ("4", "bad")]
    for response, label in examples:
        example = {"response": response, "label": label, "expected": {"answer": 4}}
        api.post(f"/api/v1/verifiers/{created['id']}/examples/", example, format="json")
    return created


def test_it_answers_a_verifier_and_its_versions_with_their_spec_documented(
    api, verifier, openapi
):
    shown = api.get(f"/api/v1/verifiers/{verifier['id']}/").json()
    jsonschema.validate(shown, documented(openapi, "/api/v1/verifiers/{id}/", "get"))
    versions = api.get(f"/api/v1/verifiers/{verifier['id']}/versions/").json()
    path = "/api/v1/verifiers/{id}/versions/"
    jsonschema.validate(versions, documented(openapi, path, "get"))


def test_it_answers_an_evaluation_as_documented(api, verifier, openapi):
    answer = api.post(f"/api/v1/verifiers/{verifier['id']}/versions/1/evaluate/")
    assert answer.status_code == 200
    path = "/api/v1/verifiers/{id}/versions/{number}/evaluate/"
    jsonschema.validate(answer.json(), documented(openapi, path, "post"))
    assert answer.json()["misjudged"][0]["label"] == "bad"


def test_it_answers_a_playground_verdict_as_documented(api, team, openapi):
    body = {"spec": SPEC, "response": "so 7", "expected": {"answer": 4}}
    answer = api.post("/api/v1/verifiers/playground/", body, format="json")
    assert answer.status_code == 200
    jsonschema.validate(answer.json(), documented(openapi, "/api/v1/verifiers/playground/", "post"))
    assert answer.json()["error_type"] == "wrong_answer"


def test_it_answers_the_builders_catalogue_and_the_sandbox_status_as_documented(api, team, openapi):
    for path in ("/api/v1/verifier-kinds/", "/api/v1/sandbox/"):
        jsonschema.validate(api.get(path).json(), documented(openapi, path, "get"))


@pytest.mark.slow
def test_it_answers_a_calibration_as_documented(api, team, judge_model_dir, openapi):
    from tests.tasks_app.verifiers.conftest import JUDGE_TEMPLATE

    params = {
        "model_path": str(judge_model_dir),
        "prompt_template": JUDGE_TEMPLATE,
        "yes_token": " yes",
        "no_token": " no",
    }
    spec = {"extract": "full_text", "layers": [{"kind": "model_judge", "params": params}]}
    body = {"team": "reasoning", "name": "Judge", "spec": spec}
    url = f"/api/v1/verifiers/{api.post('/api/v1/verifiers/', body, format='json').json()['id']}/"
    for response, label in [("the answer is 1 right", "good"), ("the answer is 1 wrong", "bad")]:
        api.post(f"{url}examples/", {"response": response, "label": label}, format="json")
    answer = api.post(f"{url}versions/1/calibrate/", {}, format="json")
    assert answer.status_code == 200, answer.json()
    path = "/api/v1/verifiers/{id}/versions/{number}/calibrate/"
    jsonschema.validate(answer.json(), documented(openapi, path, "post"))


def test_it_documents_a_layers_params_as_an_object_of_any_keys(openapi):
    from tasks_app.verifiers.spec import SPEC_SCHEMA

    layer = openapi["components"]["schemas"]["VerifierSpec"]["properties"]["layers"]["items"]
    assert layer["properties"]["params"] == {"type": "object", "additionalProperties": True}
    # The spec is still validated by its own JSON Schema, untouched by its documentation.
    params = SPEC_SCHEMA["properties"]["layers"]["items"]["properties"]["params"]
    assert "additionalProperties" not in params

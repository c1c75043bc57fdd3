import io
import json

import pytest
from rest_framework.exceptions import ParseError
from rest_framework.test import APIClient

from crucible.api.parsers import MAX_JSON_DEPTH, JSONParser

pytestmark = pytest.mark.django_db

DEEP = "[" * 50_000 + "]" * 50_000
NUL_CODE = "null_characters_not_allowed"


def nested(depth: int) -> bytes:
    return ("[" * depth + "]" * depth).encode()


def errors_of(response) -> list[dict]:  # type: ignore[no-untyped-def]
    assert response["Content-Type"] == "application/json", response.content[:200]
    return response.json()["errors"]


def nul_fields(response) -> set[str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 400, response.content[:300]
    return {e["field"] for e in errors_of(response) if e["code"] == NUL_CODE}


def test_it_parses_json_nested_to_the_limit_and_refuses_one_level_more():
    assert JSONParser().parse(io.BytesIO(nested(MAX_JSON_DEPTH))) is not None
    with pytest.raises(ParseError, match=f"deeper than {MAX_JSON_DEPTH} levels"):
        JSONParser().parse(io.BytesIO(nested(MAX_JSON_DEPTH + 1)))


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 5_000, 50_000])
def test_it_answers_deeply_nested_json_to_the_anonymous_login_with_a_400(owner, depth):
    client = APIClient(raise_request_exception=False)
    body = nested(depth)
    response = client.post("/api/v1/auth/login/", body, content_type="application/json")
    assert response.status_code == 400
    (error,) = errors_of(response)
    assert error["code"] == "parse_error" and "nested deeper than" in error["message"]


def test_it_answers_deeply_nested_json_to_a_signed_in_caller_with_a_400(team, client_for, owner):
    client = client_for(owner)
    for url in ["/api/v1/families/", "/api/v1/verifiers/playground/", "/api/v1/curricula/"]:
        response = client.post(url, DEEP, content_type="application/json")
        assert response.status_code == 400, url
        assert errors_of(response)[0]["code"] == "parse_error"


def test_it_names_each_json_field_that_carries_a_nul(api, team):
    body = {
        "team": "reasoning",
        "name": "ok",
        "kind": "arithmetic",
        "params": {"ops": ["+", "a\x00"], "bad\x00key": 1},
    }
    assert nul_fields(api.post("/api/v1/families/", body, format="json")) == {
        "params.ops[1]",
        "params.bad\\u0000key",
    }


@pytest.mark.parametrize(
    "url, body, field",
    [
        ("/api/v1/teams/", {"name": "Ok", "slug": "a\x00b"}, "slug"),
        ("/api/v1/teams/reasoning/members/", {"username": "a\x00", "role": "viewer"}, "username"),
        ("/api/v1/families/", {"team": "reas\x00", "name": "x", "kind": "arithmetic"}, "team"),
        (
            "/api/v1/verifiers/",
            {"team": "reasoning", "name": "v", "spec": {"layers": [{"kind": "re\x00"}]}},
            "spec.layers[0].kind",
        ),
        ("/api/v1/curricula/", {"team": "reasoning", "name": "c", "config": {"x": "\x00"}}, "config.x"),
        ("/api/v1/auth/login/", {"username": "owner\x00", "password": "x"}, "username"),
    ],
)
def test_it_refuses_a_nul_in_any_json_input_before_it_reaches_postgresql(api, team, url, body, field):
    assert field in nul_fields(api.post(url, body, format="json"))


def test_it_refuses_a_nul_in_a_bare_json_string_body(api):
    response = api.post("/api/v1/teams/", json.dumps("\x00"), content_type="application/json")
    assert nul_fields(response) == {None}


def test_it_refuses_a_nul_in_form_and_multipart_fields(api, team):
    form = api.post(
        "/api/v1/teams/reasoning/members/",
        "username=a%00b&role=viewer",
        content_type="application/x-www-form-urlencoded",
    )
    assert nul_fields(form) == {"username"}
    multipart = api.post(
        "/api/v1/teams/reasoning/members/", {"username": "a\x00b", "role": "viewer"}
    )
    assert nul_fields(multipart) == {"username"}


def test_it_reports_at_most_twenty_nul_fields(api, team):
    body = {f"k{i}": "\x00" for i in range(100)}
    response = api.post("/api/v1/teams/", body, format="json")
    assert len(nul_fields(response)) == 20


def test_it_refuses_a_lone_surrogate_in_free_form_json(api, team, owner):
    from tasks_app.services import verifiers

    verifier = verifiers.create_verifier(owner, team, name="E", slug="e")
    body = '{"response": "a", "label": "good", "expected": {"a": ["ok", "\\ud800"]}}'
    response = api.post(
        f"/api/v1/verifiers/{verifier.id}/examples/", body, content_type="application/json"
    )
    assert response.status_code == 400
    assert errors_of(response) == [
        {
            "field": "expected.a[1]",
            "code": "surrogate_characters_not_allowed",
            "message": "Surrogate characters are not allowed: U+D800.",
        }
    ]
    assert verifier.examples.count() == 0

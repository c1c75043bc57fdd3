import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from crucible.api.parsers import MAX_JSON_DEPTH
from tasks_app.models import TaskFamily
from tasks_app.services import pools

pytestmark = pytest.mark.django_db


def only_error(response) -> dict:  # type: ignore[no-untyped-def]
    assert response.status_code == 400, response.content[:300]
    (error,) = response.json()["errors"]
    return error


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 50_000])
def test_it_refuses_json_text_nested_too_deep_in_a_form_field(api, team, depth):
    body = {"team": "reasoning", "name": "f", "kind": "arithmetic"}
    response = api.post("/api/v1/families/", {**body, "params": "[" * depth + "]" * depth})
    error = only_error(response)
    assert (error["field"], error["code"]) == ("params", "too_deep")
    assert TaskFamily.objects.count() == 0


def test_it_names_a_nul_inside_json_text_in_a_form_field(api, team):
    params = json.dumps({"ops": ["+", "\x00"]})
    response = api.post(
        "/api/v1/curricula/", {"team": "reasoning", "name": "c", "config": params}
    )
    error = only_error(response)
    assert (error["field"], error["code"]) == ("config.ops[1]", "null_characters_not_allowed")


def test_it_refuses_a_nul_in_an_uploads_json_mapping(api, owner, team):
    family = pools.create_family(owner, team, name="D", slug="d", kind="string-ops")
    rows = json.dumps({"q": "reverse abc", "a": "cba"}).encode()
    upload = SimpleUploadedFile("t.jsonl", rows, content_type="application/jsonl")
    mapping = json.dumps({"prompt": "q", "answer": "a\x00"})
    response = api.post(
        f"/api/v1/families/{family.id}/versions/upload/",
        {"file": upload, "mapping": mapping},
        format="multipart",
    )
    error = only_error(response)
    assert (error["field"], error["code"]) == ("mapping.answer", "null_characters_not_allowed")
    assert family.versions.count() == 0


def test_it_reads_a_boolean_a_form_leaves_out_as_left_out():
    from django.http import QueryDict
    from rest_framework import serializers

    from crucible.api.serializers import StrictSerializer

    class Body(StrictSerializer):
        required_flag = serializers.BooleanField()
        optional_flag = serializers.BooleanField(required=False)
        defaulted_flag = serializers.BooleanField(default=True)

    body = Body(data=QueryDict(""))
    assert not body.is_valid()
    assert set(body.errors) == {"required_flag"}
    body = Body(data=QueryDict("required_flag=true"))
    assert body.is_valid(), body.errors
    # Left out means left out: no False for the optional one, the default for the other.
    assert body.validated_data == {"required_flag": True, "defaulted_flag": True}

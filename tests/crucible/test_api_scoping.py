import re

import pytest
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from crucible.api.scoping import visible_teams

pytestmark = pytest.mark.django_db

METHODS = {"get", "post", "put", "patch", "delete"}


def protected_operations(openapi) -> list[tuple[str, str]]:
    """Every (method, concrete path) in the schema that does not allow anonymous callers."""
    operations = []
    for path, item in openapi["paths"].items():
        concrete = re.sub(r"\{[^}]+\}", "1", path)
        for method, operation in item.items():
            if method in METHODS and {} not in operation.get("security", []):
                operations.append((method, concrete))
    return operations


def test_it_answers_401_json_to_anonymous_calls_on_every_protected_route(openapi, team):
    operations = protected_operations(openapi)
    assert ("get", "/api/v1/families/") in operations and len(operations) > 40
    client = APIClient(raise_request_exception=False)
    for method, path in operations:
        response = getattr(client, method)(path)
        assert response.status_code == 401, (method, path, response.content[:300])
        assert response["Content-Type"] == "application/json", (method, path)
        assert response.json()["errors"][0]["code"] == "not_authenticated", (method, path)


def test_it_refuses_to_scope_a_queryset_for_an_anonymous_caller():
    request = Request(APIRequestFactory().get("/api/v1/families/"))
    with pytest.raises(exceptions.NotAuthenticated):
        visible_teams(request)

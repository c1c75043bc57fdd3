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


PLATFORM_READS = ["/api/v1/workers/", "/api/v1/models/", "/api/v1/usage/rates/", "/api/v1/sandbox/"]


@pytest.mark.parametrize("path", PLATFORM_READS)
def test_it_keeps_the_platforms_workers_models_rates_and_sandbox_from_users_in_no_team(
    client_for, make_user, path
):
    loner = make_user("loner")  # signed up, in no team
    response = client_for(loner).get(path)
    assert response.status_code == 403
    (error,) = response.json()["errors"]
    assert (error["code"], error["message"]) == (
        "permission_denied", "This needs membership of a team."
    )  # fmt: skip


@pytest.mark.parametrize("path", PLATFORM_READS)
def test_it_shows_them_to_team_members_and_their_team_tokens(client_for, teammate, team, path):
    from crucible.accounts.services import create_token

    assert client_for(teammate).get(path).status_code == 200
    scripted = APIClient()
    scripted.credentials(HTTP_AUTHORIZATION=f"Bearer {create_token(teammate, 'ci', team=team).secret}")
    assert scripted.get(path).status_code == 200
    team.memberships.filter(user=teammate).delete()  # the token's one team is gone
    assert scripted.get(path).status_code == 403

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url, field",
    [
        ("/api/v1/families/?team=%00", "team"),
        ("/api/v1/verifiers/?family_kind=a%00", "family_kind"),
        ("/api/v1/audit/?search=%00&action=x", "search"),
        ("/api/v1/pool-versions/?source=%00", "source"),
        ("/api/v1/curricula/?a%00=1", "a\\u0000"),
    ],
)
def test_it_refuses_a_nul_in_a_query_parameter_and_names_it(api, team, url, field):
    response = api.get(url)
    assert response.status_code == 400
    assert response.json() == {
        "errors": [
            {
                "field": field,
                "code": "null_characters_not_allowed",
                "message": "Null characters are not allowed.",
            }
        ]
    }


def test_it_answers_a_nul_in_the_api_path_with_a_json_404(api, team):
    for url in ["/api/v1/teams/%00/", "/api/v1/teams/reasoning%00/members/"]:
        response = api.get(url)
        assert response.status_code == 404
        assert response.json()["errors"][0]["code"] == "not_found"


def test_it_leaves_paths_outside_the_api_alone(client):
    assert client.get("/healthz?x=%00").status_code != 400


def test_it_ignores_a_cookie_that_carries_a_nul(owner):
    client = APIClient(raise_request_exception=False)
    client.cookies["sessionid"] = "abcdefgh\x00ijkl"
    response = client.get("/api/v1/families/")
    assert response.status_code == 401
    assert response.json()["errors"][0]["code"] == "not_authenticated"


def test_it_keeps_a_session_beside_a_cookie_with_a_nul(owner):
    client = APIClient(raise_request_exception=False)
    client.login(username="owner", password="correct horse battery")
    client.cookies["junk"] = "a\x00"
    assert client.get("/api/v1/auth/me/").json()["username"] == "owner"

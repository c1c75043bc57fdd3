import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def app_client() -> APIClient:
    """A browser that has loaded the app: it holds the CSRF cookie and sends it back."""
    client = APIClient(enforce_csrf_checks=True)
    client.get("/login")
    client.credentials(HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    return client


def test_it_logs_in_with_the_right_password_and_reports_teams(owner, team):
    client = app_client()
    response = client.post(
        "/api/v1/auth/login/",
        {"username": "owner", "password": "correct horse battery"},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["teams"] == [
        {"id": team.id, "slug": "reasoning", "name": "Reasoning", "role": "admin"}
    ]
    assert client.get("/api/v1/auth/me/").json()["username"] == "owner"


def test_it_rejects_a_wrong_password_with_one_clear_error(owner):
    response = APIClient().post(
        "/api/v1/auth/login/", {"username": "owner", "password": "nope"}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "errors": [
            {"field": None, "code": "invalid_credentials", "message": "Wrong username or password."}
        ]
    }


def test_it_answers_401_to_anonymous_calls():
    response = APIClient().get("/api/v1/auth/me/")
    assert response.status_code == 401
    assert response.json()["errors"][0]["code"] == "not_authenticated"


def test_it_rejects_malformed_json_without_a_500(owner):
    response = APIClient().post(
        "/api/v1/auth/login/", data="{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "parse_error"


def test_it_names_a_missing_field_and_an_unknown_field(owner):
    response = APIClient().post(
        "/api/v1/auth/login/", {"username": "owner", "pasword": "x"}, format="json"
    )
    assert response.status_code == 400
    errors = {(e["field"], e["code"]) for e in response.json()["errors"]}
    assert ("password", "required") in errors
    assert ("pasword", "unknown_field") in errors


def test_it_logs_out(owner):
    client = APIClient()
    client.post(
        "/api/v1/auth/login/",
        {"username": "owner", "password": "correct horse battery"},
        format="json",
    )
    assert client.post("/api/v1/auth/logout/").status_code == 204
    assert client.get("/api/v1/auth/me/").status_code == 401


def test_it_enforces_csrf_for_session_writes(owner):
    client = APIClient(enforce_csrf_checks=True)
    client.login(username="owner", password="correct horse battery")
    response = client.post("/api/v1/teams/", {"name": "No token"}, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["errors"][0]["message"]


@pytest.mark.parametrize("origin", ["https://evil.example", None])
def test_it_refuses_a_login_form_posted_from_another_site(owner, origin):
    # The attacker's page posts its own credentials: the victim would work in its account.
    client = APIClient(enforce_csrf_checks=True)
    headers = {"HTTP_ORIGIN": origin} if origin else {}
    response = client.post(
        "/api/v1/auth/login/",
        "username=owner&password=correct+horse+battery",
        content_type="application/x-www-form-urlencoded",
        **headers,
    )
    assert response.status_code == 403
    assert "CSRF" in response.json()["errors"][0]["message"]
    assert "sessionid" not in client.cookies
    assert client.get("/api/v1/auth/me/").status_code == 401

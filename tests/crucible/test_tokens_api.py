from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from crucible.accounts.models import ApiToken, hash_token

pytestmark = pytest.mark.django_db


def bearer(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def test_it_shows_a_new_token_once_and_stores_only_its_hash(api, team):
    response = api.post("/api/v1/tokens/", {"name": "ci", "days": 7}, format="json")
    assert response.status_code == 201
    secret = response.json()["token"]
    assert secret.startswith("crc_")
    stored = ApiToken.objects.get()
    assert stored.key_hash == hash_token(secret) and secret not in stored.key_hash
    listed = api.get("/api/v1/tokens/").json()["results"][0]
    assert "token" not in listed and listed["prefix"] == secret[:12]


def test_it_authenticates_automation_with_a_bearer_token(api, team):
    secret = api.post("/api/v1/tokens/", {"name": "ci"}, format="json").json()["token"]
    response = bearer(secret).get("/api/v1/teams/")
    assert response.status_code == 200
    assert [t["slug"] for t in response.json()["results"]] == ["reasoning"]
    assert ApiToken.objects.get().last_used_at is not None


def test_it_rejects_a_revoked_token(api, team):
    created = api.post("/api/v1/tokens/", {"name": "ci"}, format="json").json()
    assert api.delete(f"/api/v1/tokens/{created['id']}/").status_code == 204
    response = bearer(created["token"]).get("/api/v1/teams/")
    assert response.status_code == 401
    assert response.json()["errors"][0]["message"] == "this API token was revoked"


def test_it_rejects_an_expired_token(api, team):
    created = api.post("/api/v1/tokens/", {"name": "ci", "days": 1}, format="json").json()
    ApiToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert (
        bearer(created["token"]).get("/api/v1/teams/").json()["errors"][0]["message"]
        == "this API token has expired"
    )


def test_it_rejects_an_unknown_or_malformed_token():
    assert bearer("crc_nope").get("/api/v1/teams/").status_code == 401
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer two parts")
    assert client.get("/api/v1/teams/").status_code == 401


def test_it_narrows_a_team_bound_token_to_its_team(api, owner, team):
    from crucible.accounts import services

    services.create_team(owner, "Other", "other")
    secret = api.post(
        "/api/v1/tokens/", {"name": "bound", "team": "reasoning"}, format="json"
    ).json()["token"]
    slugs = [t["slug"] for t in bearer(secret).get("/api/v1/teams/").json()["results"]]
    assert slugs == ["reasoning"]
    assert bearer(secret).get("/api/v1/teams/other/").status_code == 404


def test_it_refuses_a_token_for_a_foreign_team(client_for, team, outsider):
    response = client_for(outsider).post(
        "/api/v1/tokens/", {"name": "x", "team": "reasoning"}, format="json"
    )
    assert response.status_code == 404
    assert ApiToken.objects.count() == 0


def test_it_validates_the_lifetime(api):
    response = api.post("/api/v1/tokens/", {"name": "x", "days": 9999}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "days"


def test_it_cannot_revoke_someone_elses_token(api, client_for, team, outsider):
    created = api.post("/api/v1/tokens/", {"name": "ci"}, format="json").json()
    assert client_for(outsider).delete(f"/api/v1/tokens/{created['id']}/").status_code == 404
    assert ApiToken.objects.get().revoked_at is None

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


def _issue(api, **body) -> dict:
    response = api.post("/api/v1/tokens/", {"name": "parent", **body}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_it_keeps_a_token_minted_by_a_team_bound_token_in_that_team(api, owner, team):
    from crucible.accounts import services

    services.create_team(owner, "Other", "other")
    parent = _issue(api, team="reasoning")
    response = bearer(parent["token"]).post("/api/v1/tokens/", {"name": "child"}, format="json")
    assert response.status_code == 201
    assert response.json()["team"] == "reasoning"
    child = bearer(response.json()["token"])
    assert [t["slug"] for t in child.get("/api/v1/teams/").json()["results"]] == ["reasoning"]


def test_it_refuses_an_unbound_token_from_a_team_bound_token(api, team):
    parent = _issue(api, team="reasoning")
    response = bearer(parent["token"]).post(
        "/api/v1/tokens/", {"name": "wide", "team": None}, format="json"
    )
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert (error["field"], error["code"]) == ("team", "wider_than_token")
    assert "reasoning" in error["message"]
    assert ApiToken.objects.count() == 1


def test_it_refuses_a_token_for_another_team_from_a_team_bound_token(api, owner, team):
    from crucible.accounts import services

    services.create_team(owner, "Other", "other")
    parent = _issue(api, team="reasoning")
    response = bearer(parent["token"]).post(
        "/api/v1/tokens/", {"name": "sideways", "team": "other"}, format="json"
    )
    assert response.status_code == 404
    assert ApiToken.objects.count() == 1


def test_it_refuses_a_token_that_never_expires(api, team):
    response = api.post("/api/v1/tokens/", {"name": "forever", "days": None}, format="json")
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert (error["field"], error["code"]) == ("days", "null")
    assert ApiToken.objects.count() == 0


def test_it_lets_a_signed_in_user_create_a_token_for_the_longest_lifetime(api, team):
    created = _issue(api, days=365)
    token = ApiToken.objects.get(pk=created["id"])
    assert abs(token.expires_at - token.created_at - timedelta(days=365)) < timedelta(seconds=5)


def test_it_refuses_a_token_that_outlives_the_token_creating_it(api, team):
    parent = _issue(api, days=7)
    response = bearer(parent["token"]).post(
        "/api/v1/tokens/", {"name": "longer", "days": 30}, format="json"
    )
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert (error["field"], error["code"]) == ("days", "outlives_token")
    assert ApiToken.objects.count() == 1


def test_it_cuts_the_default_lifetime_to_the_creating_tokens_expiry(api, team):
    parent = _issue(api, days=7)
    child = bearer(parent["token"]).post("/api/v1/tokens/", {"name": "child"}, format="json")
    assert child.status_code == 201
    assert (
        ApiToken.objects.get(pk=child.json()["id"]).expires_at
        <= ApiToken.objects.get(pk=parent["id"]).expires_at
    )


def test_it_caps_a_token_made_with_a_token_that_never_expires(api, team):
    parent = _issue(api)
    ApiToken.objects.filter(pk=parent["id"]).update(expires_at=None)
    client = bearer(parent["token"])
    too_long = client.post("/api/v1/tokens/", {"name": "x", "days": 366}, format="json")
    assert too_long.status_code == 400
    child = client.post("/api/v1/tokens/", {"name": "x", "days": 365}, format="json")
    assert child.status_code == 201
    assert ApiToken.objects.get(pk=child.json()["id"]).expires_at is not None


def test_it_lists_and_revokes_only_its_own_teams_tokens_with_a_team_bound_token(
    api, owner, team
):
    from crucible.accounts import services

    services.create_team(owner, "Other", "other")
    unbound = _issue(api)
    elsewhere = _issue(api, team="other")
    bound = _issue(api, team="reasoning")
    sibling = _issue(api, team="reasoning")
    client = bearer(bound["token"])
    listed = {t["id"] for t in client.get("/api/v1/tokens/").json()["results"]}
    assert listed == {bound["id"], sibling["id"]}
    for hidden in (unbound, elsewhere):
        assert client.get(f"/api/v1/tokens/{hidden['id']}/").status_code == 404
        assert client.delete(f"/api/v1/tokens/{hidden['id']}/").status_code == 404
    assert client.delete(f"/api/v1/tokens/{sibling['id']}/").status_code == 204
    assert ApiToken.objects.filter(revoked_at__isnull=False).get().pk == sibling["id"]

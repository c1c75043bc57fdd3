import pytest

from crucible.accounts.models import AuditEvent, Membership

pytestmark = pytest.mark.django_db


def test_it_creates_a_team_with_the_creator_as_admin(api, owner):
    response = api.post("/api/v1/teams/", {"name": "Code RL"}, format="json")
    assert response.status_code == 201
    assert response.json()["slug"] == "code-rl"
    assert Membership.objects.get(team__slug="code-rl", user=owner).role == "admin"
    assert AuditEvent.objects.filter(action="team.created", actor=owner).exists()


def test_it_lists_only_the_callers_teams(client_for, team, outsider):
    slugs = [t["slug"] for t in client_for(outsider).get("/api/v1/teams/").json()["results"]]
    assert slugs == ["elsewhere"]


def test_it_hides_another_teams_existence_with_a_404(client_for, team, outsider):
    assert client_for(outsider).get("/api/v1/teams/reasoning/").status_code == 404
    assert client_for(outsider).get("/api/v1/teams/reasoning/members/").status_code == 404


def test_it_lets_admins_add_members_with_a_role(api, team, make_user):
    make_user("newcomer")
    response = api.post(
        "/api/v1/teams/reasoning/members/",
        {"username": "newcomer", "role": "editor"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["role"] == "editor"


def test_it_refuses_member_changes_from_a_viewer(client_for, team, teammate, make_user):
    make_user("newcomer")
    response = client_for(teammate).post(
        "/api/v1/teams/reasoning/members/", {"username": "newcomer", "role": "admin"}, format="json"
    )
    assert response.status_code == 403
    assert "admin role" in response.json()["errors"][0]["message"]


def test_it_names_an_unknown_user_and_a_bad_role(api, team):
    response = api.post(
        "/api/v1/teams/reasoning/members/", {"username": "ghost", "role": "king"}, format="json"
    )
    assert response.status_code == 400
    fields = {e["field"] for e in response.json()["errors"]}
    assert fields == {"username", "role"}


def test_it_keeps_at_least_one_admin(api, team, owner):
    membership = Membership.objects.get(team=team, user=owner)
    response = api.patch(
        f"/api/v1/teams/reasoning/members/{membership.id}/", {"role": "viewer"}, format="json"
    )
    assert response.status_code == 403
    membership.refresh_from_db()
    assert membership.role == "admin"


def test_it_lets_an_admin_change_a_role_and_audits_it(api, team, teammate):
    membership = Membership.objects.get(team=team, user=teammate)
    response = api.patch(
        f"/api/v1/teams/reasoning/members/{membership.id}/", {"role": "editor"}, format="json"
    )
    assert response.status_code == 200
    assert AuditEvent.objects.get(action="member.role_changed").changes == {
        "role": ["viewer", "editor"]
    }


def test_it_shows_the_audit_log_to_members_only(api, client_for, team, outsider):
    api.post("/api/v1/tokens/", {"name": "ci", "team": "reasoning"}, format="json")
    actions = [e["action"] for e in api.get("/api/v1/audit/?team=reasoning").json()["results"]]
    assert actions == ["token.created", "team.created"]
    assert client_for(outsider).get("/api/v1/audit/?team=reasoning").json()["results"] == []

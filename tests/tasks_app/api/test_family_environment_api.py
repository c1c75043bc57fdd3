"""A family says it is played as an environment: stored complete, editable, refused by field."""

import pytest

from crucible.accounts.models import AuditEvent
from tasks_app.models import TaskFamily

pytestmark = pytest.mark.django_db


def post_family(api, kind, **extra):
    return api.post(
        "/api/v1/families/",
        {"team": "reasoning", "name": f"{kind} family", "kind": kind, **extra},
        format="json",
    )


def test_a_family_is_played_as_an_environment_with_its_limits(api, team):
    response = post_family(
        api, "guess-number", environment={"kind": "guess-number", "limits": {"max_turns": 6}}
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["environment"] == {
        "kind": "guess-number",
        "limits": {"max_turns": 6, "max_tokens_per_turn": 4, "max_total_tokens": 96},
    }
    family = TaskFamily.objects.get(pk=body["id"])
    assert family.environment == body["environment"]

    edited = api.patch(
        f"/api/v1/families/{family.pk}/",
        {"environment": {"kind": "guess-number", "limits": {"max_turns": 9}}},
        format="json",
    )
    assert edited.status_code == 200, edited.json()
    assert edited.json()["environment"]["limits"]["max_turns"] == 9
    assert AuditEvent.objects.filter(action="family.updated").exists()

    cleared = api.patch(f"/api/v1/families/{family.pk}/", {"environment": None}, format="json")
    assert cleared.status_code == 200 and cleared.json()["environment"] is None
    assert post_family(api, "arithmetic").json()["environment"] is None


@pytest.mark.parametrize(
    ("kind", "environment", "field"),
    [
        ("guess-number", {"kind": "chess"}, "environment.kind"),
        ("arithmetic", {"kind": "guess-number"}, "environment.kind"),
        (
            "guess-number",
            {"kind": "guess-number", "limits": {"max_turns": 999}},
            "environment.limits.max_turns",
        ),
        ("guess-number", "guess-number", "environment"),
    ],
)
def test_a_wrong_environment_is_a_400_naming_its_field(api, team, kind, environment, field):
    response = post_family(api, kind, environment=environment)
    assert response.status_code == 400
    assert [e["field"] for e in response.json()["errors"]] == [field]
    assert not TaskFamily.objects.exists()

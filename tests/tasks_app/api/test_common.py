import pytest
from rest_framework.exceptions import ValidationError

from crucible.api.field_errors import slug_conflicts_refused, unique_conflicts_refused
from tasks_app.models import Curriculum, TaskFamily, Verifier

pytestmark = pytest.mark.django_db

ROUTES = {TaskFamily: "families", Verifier: "verifiers", Curriculum: "curricula"}
EXTRA = {TaskFamily: {"kind": "arithmetic"}, Verifier: {}, Curriculum: {"config": {}}}
MESSAGES = {
    TaskFamily: "A task family with this slug already exists in this team.",
    Verifier: "A verifier with this slug already exists in this team.",
    Curriculum: "A curriculum with this slug already exists in this team.",
}


def make(model, team, slug):  # type: ignore[no-untyped-def]
    return model.objects.create(team=team, name=slug.title(), slug=slug, **EXTRA[model])


def slug_error(response) -> dict:  # type: ignore[no-untyped-def]
    assert response.status_code == 400, response.content[:300]
    (error,) = response.json()["errors"]
    assert error["field"] == "slug" and error["code"] == "unique"
    return error


@pytest.mark.parametrize("model", list(ROUTES))
def test_it_refuses_to_rename_a_slug_to_one_taken_in_the_team(api, team, model):
    make(model, team, "first")
    second = make(model, team, "second")
    response = api.patch(f"/api/v1/{ROUTES[model]}/{second.pk}/", {"slug": "first"}, format="json")
    assert slug_error(response)["message"] == MESSAGES[model]
    second.refresh_from_db()
    assert second.slug == "second"


@pytest.mark.parametrize("model", list(ROUTES))
def test_it_lets_a_slug_be_reused_across_teams_and_kept_on_an_edit(api, team, outsider, model):
    from crucible.accounts.models import Team

    make(model, Team.objects.get(slug="elsewhere"), "first")
    mine = make(model, team, "mine")
    url = f"/api/v1/{ROUTES[model]}/{mine.pk}/"
    assert api.patch(url, {"slug": "mine", "name": "Renamed"}, format="json").status_code == 200
    assert api.patch(url, {"slug": "first"}, format="json").status_code == 200


def test_it_refuses_a_taken_slug_on_create(api, team):
    make(Verifier, team, "taken")
    response = api.post(
        "/api/v1/verifiers/", {"team": "reasoning", "name": "V", "slug": "taken"}, format="json"
    )
    assert slug_error(response)["message"] == MESSAGES[Verifier]


@pytest.mark.parametrize("model", list(ROUTES))
def test_it_turns_a_lost_race_for_a_slug_into_a_400(team, model):
    make(model, team, "raced")
    with pytest.raises(ValidationError) as caught:
        with slug_conflicts_refused(model):
            make(model, team, "raced")
    assert caught.value.detail == {"slug": [MESSAGES[model]]}
    assert model.objects.filter(slug="raced").count() == 1


def test_it_lets_other_integrity_errors_through(team):
    from django.db import IntegrityError

    with pytest.raises(IntegrityError):
        with slug_conflicts_refused(TaskFamily):
            TaskFamily.objects.create(team=team, name=None, slug="x", kind="arithmetic")


def test_it_turns_a_lost_race_for_a_unique_name_into_a_400_on_that_field(team):
    from experiments.models import RegisteredModel

    RegisteredModel.objects.create(team=team, name="raced")
    with pytest.raises(ValidationError) as caught:
        with unique_conflicts_refused(RegisteredModel, "name", "that name is taken"):
            RegisteredModel.objects.create(team=team, name="raced")
    assert caught.value.detail == {"name": ["that name is taken"]}
    assert caught.value.detail["name"][0].code == "unique"
    assert RegisteredModel.objects.filter(name="raced").count() == 1

import jsonschema
import pytest

from tests.crucible.test_api_schema import json_schema

pytestmark = pytest.mark.django_db


def documented(openapi, path: str, method: str = "get", status: str = "200") -> dict:  # type: ignore[no-untyped-def]
    """The documented JSON body schema, resolvable against the document's components."""
    content = openapi["paths"][path][method]["responses"][status]["content"]
    schema = {**content["application/json"]["schema"], "components": openapi["components"]}
    return json_schema(schema)


def test_it_lists_the_distinct_actions_as_its_schema_documents(api, team, make_user, openapi):
    for name in ["ada", "bob"]:
        make_user(name)
        api.post("/api/v1/teams/reasoning/members/", {"username": name, "role": "viewer"})
    response = api.get("/api/v1/audit/actions/")
    assert response.status_code == 200
    assert response.json() == ["member.added", "team.created"]
    jsonschema.validate(response.json(), documented(openapi, "/api/v1/audit/actions/"))
    operation = openapi["paths"]["/api/v1/audit/actions/"]["get"]
    assert not [p for p in operation.get("parameters", []) if p["in"] == "query"]


@pytest.fixture
def version(owner, team):
    from tasks_app.services import pools

    family = pools.create_family(owner, team, name="Arithmetic", slug="arith", kind="arithmetic")
    tasks = pools.generated_tasks(family, {1: 10}, seed=0)
    return pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]


def events_by_action(api) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    response = api.get("/api/v1/audit/", {"team": "reasoning"})
    assert response.status_code == 200
    return {event["action"]: event for event in response.json()["results"]}


def test_it_names_and_links_each_event_to_its_targets_page(api, version, openapi):
    verifier = api.post(
        "/api/v1/verifiers/", {"team": "reasoning", "name": "Exact answer"}, format="json"
    ).json()
    curriculum = api.post(
        "/api/v1/curricula/",
        {"team": "reasoning", "name": "Ramp", "config": {"families": [{"version": version.id}]}},
        format="json",
    ).json()
    from experiments.models import Worker

    offered = {"name": "m", "path": "m", "builtin": False, "parameters": None, "ready": True}
    Worker.objects.create(name="celery@cpu", queues=["cpu"], loadable=[offered])
    graded = api.post(
        f"/api/v1/pool-versions/{version.id}/jobs/", {"model_path": "m"}, format="json"
    )
    assert graded.status_code == 202, graded.json()
    events = events_by_action(api)
    family_page = f"/task-families/{version.family_id}"
    shown = {
        action: (events[action]["target_label"], events[action]["target_path"])
        for action in [
            "family.created",
            "pool.version_created",
            "pool.grading_started",
            "verifier.created",
            "curriculum.created",
            "team.created",
        ]
    }
    assert shown == {
        "family.created": ("Arithmetic", family_page),
        "pool.version_created": ("Arithmetic v1", f"{family_page}/versions/{version.id}"),
        "pool.grading_started": ("Arithmetic v1", f"{family_page}/versions/{version.id}"),
        "verifier.created": ("Exact answer", f"/verifiers/{verifier['id']}"),
        "curriculum.created": ("Ramp", f"/curricula/{curriculum['id']}"),
        "team.created": ("Reasoning", "/settings/team"),
    }
    response = api.get("/api/v1/audit/", {"team": "reasoning"})
    jsonschema.validate(response.json(), documented(openapi, "/api/v1/audit/"))


def test_it_keeps_the_name_an_event_happened_under_after_a_rename(api, team):
    verifier = api.post(
        "/api/v1/verifiers/", {"team": "reasoning", "name": "Exact answer"}, format="json"
    ).json()
    api.patch(f"/api/v1/verifiers/{verifier['id']}/", {"name": "Numeric"}, format="json")
    assert events_by_action(api)["verifier.created"]["target_label"] == "Exact answer"


def test_it_names_deleted_verifiers_examples_and_curricula_without_a_link(api, version):
    verifier = api.post(
        "/api/v1/verifiers/", {"team": "reasoning", "name": "Exact answer"}, format="json"
    ).json()
    example = api.post(
        f"/api/v1/verifiers/{verifier['id']}/examples/",
        {"response": "Answer: 4", "label": "bad"},
        format="json",
    ).json()
    curriculum = api.post(
        "/api/v1/curricula/",
        {"team": "reasoning", "name": "Ramp", "config": {"families": [{"version": version.id}]}},
        format="json",
    ).json()
    verifier_url = f"/api/v1/verifiers/{verifier['id']}/"
    assert api.delete(f"{verifier_url}examples/{example['id']}/").status_code == 204
    assert api.delete(verifier_url).status_code == 204
    assert api.delete(f"/api/v1/curricula/{curriculum['id']}/").status_code == 204
    events = events_by_action(api)
    shown = {
        action: (events[action]["target_label"], events[action]["target_path"])
        for action in [
            "verifier.example_deleted",
            "verifier.deleted",
            "curriculum.deleted",
            "verifier.created",
        ]
    }
    assert shown == {
        "verifier.example_deleted": ("Exact answer", None),
        "verifier.deleted": ("Exact answer", None),
        "curriculum.deleted": ("Ramp", None),
        "verifier.created": ("Exact answer", None),
    }


def test_it_links_a_page_of_events_in_one_query_per_target_type(
    api, owner, team, django_assert_max_num_queries
):
    from tasks_app.services import verifiers

    for n in range(12):
        verifiers.create_verifier(owner, team, name=f"V{n}", slug=f"v{n}")
    with django_assert_max_num_queries(8):
        results = api.get("/api/v1/audit/", {"team": "reasoning"}).json()["results"]
    assert sum(1 for e in results if (e["target_path"] or "").startswith("/verifiers/")) == 12


def test_it_names_events_logged_before_labels_existed_from_their_changes(owner, team, make_user):
    import importlib

    from django.apps import apps

    from crucible.accounts import services
    from crucible.accounts.models import AuditEvent

    services.add_member(owner, team, make_user("bob"), "viewer")
    migration = importlib.import_module("crucible.accounts.migrations.0002_auditevent_target_label")
    AuditEvent.objects.update(target_label="")
    migration.label_past_events(apps, None)
    assert AuditEvent.objects.get(action="team.created").target_label == "Reasoning"
    assert AuditEvent.objects.get(action="member.added").target_label == "bob"


def test_it_filters_by_actor_object_type_time_and_search(api, client_for, team, make_user):
    from datetime import timedelta

    from django.utils import timezone

    from crucible.accounts.models import AuditEvent, Membership, Role

    ada = make_user("ada")
    Membership.objects.create(user=ada, team=team, role=Role.EDITOR)
    client_for(ada).post(
        "/api/v1/verifiers/", {"team": "reasoning", "name": "Exact"}, format="json"
    )
    api.post("/api/v1/verifiers/", {"team": "reasoning", "name": "Numeric"}, format="json")
    AuditEvent.objects.filter(target_label="Numeric").update(
        created_at=timezone.now() - timedelta(days=3)
    )

    def labels(**query: str) -> list[str]:
        response = api.get("/api/v1/audit/", {"team": "reasoning", **query})
        assert response.status_code == 200, response.json()
        return [e["target_label"] for e in response.json()["results"]]

    assert labels(actor="ada") == ["Exact"]
    assert labels(target_type="tasks_app.verifier", actor="owner") == ["Numeric"]
    since = (timezone.now() - timedelta(days=1)).isoformat()
    assert "Numeric" not in labels(since=since) and "Exact" in labels(since=since)
    assert labels(until=since, target_type="tasks_app.verifier") == ["Numeric"]
    assert labels(search="numer") == ["Numeric"]
    assert labels(actor="nobody") == []


def test_it_names_a_malformed_time_filter(api, team):
    response = api.get("/api/v1/audit/", {"since": "yesterday"})
    assert response.status_code == 400
    assert "since" in str(response.json())


def test_it_filters_by_a_time_with_any_offset_python_accepts(api, team):
    """PostgreSQL refuses offsets beyond ±15:59; the filter hands it the time in UTC."""
    assert api.get("/api/v1/audit/", {"until": "0004-01-31T09:04:35+21:56"}).status_code == 200
    response = api.get("/api/v1/audit/", {"since": "0001-01-01T00:00:00+23:00"})
    assert response.status_code == 400  # before the first representable UTC time
    assert "since" in str(response.json())

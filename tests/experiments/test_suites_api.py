"""/api/v1/evaluation-suites/ and evaluations started from a suite, per persona (owner,
teammate with the viewer role, outsider)."""

from __future__ import annotations

from unittest import mock

import pytest
from drf_spectacular.generators import SchemaGenerator

from experiments.catalogue import TINY_MODEL
from experiments.models import EvaluationJob, EvaluationSuite
from tests.experiments.runs_setup import digit_verifier, digit_version

pytestmark = pytest.mark.django_db
URL = "/api/v1/evaluation-suites/"


@pytest.fixture
def sent():
    with mock.patch("crucible.jobs.send") as send:
        yield send


@pytest.fixture
def pinned(owner, team):
    return digit_version(owner, team), digit_verifier(owner, team)


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def body(pinned, **extra):
    version, verifier = pinned
    families = [{"pool_version": version.pk, "verifier_version": verifier.pk, "threshold_pts": 4}]
    return {"team": "reasoning", "name": "core", "families": families, "k": 2, **extra}


def test_it_creates_lists_changes_and_deletes_a_suite(api, pinned):
    response = api.post(URL, body(pinned, description="the held-out core"), format="json")
    assert response.status_code == 201, response.json()
    made = response.json()
    assert made["team"] == "reasoning" and made["name"] == "core" and made["k"] == 2
    assert made["max_tasks"] == 200 and made["temperature"] == 1.0  # the job's defaults
    assert made["families"][0]["family"] == "digits"
    assert made["families"][0]["threshold_pts"] == 4 and made["created_by"] == "owner"
    assert (made["jobs"], made["experiments"]) == (0, 0)
    assert [s["name"] for s in api.get(URL).json()["results"]] == ["core"]
    changed = api.patch(f"{URL}{made['id']}/", {"k": 6, "name": "core v2"}, format="json")
    assert changed.status_code == 200, changed.json()
    assert (changed.json()["k"], changed.json()["name"]) == (6, "core v2")
    # A PATCH may leave out fields, not half a family: the missing key is named, not a 500.
    half = api.patch(f"{URL}{made['id']}/", {"families": [{"pool_version": 1}]}, format="json")
    assert half.status_code == 400
    assert fields(half) == {"families[0].verifier_version": "This field is required."}
    assert api.delete(f"{URL}{made['id']}/").status_code == 204
    assert not EvaluationSuite.objects.exists()


def test_it_names_each_bad_field_and_saves_nothing(api, pinned):
    bad = body(pinned, k=0, families=[{"pool_version": 999_999, "verifier_version": 1}])
    response = api.post(URL, bad, format="json")
    assert response.status_code == 400 and "k" in fields(response)
    response = api.post(URL, body(pinned, families=[{"pool_version": 999_999,
                                                     "verifier_version": pinned[1].pk}]),
                        format="json")  # fmt: skip
    assert fields(response) == {"families[0].pool_version": "no such pool version in the team"}
    response = api.post(URL, body(pinned, seed=2**40), format="json")
    assert response.status_code == 400 and set(fields(response)) == {"seed"}
    assert api.post(URL, body(pinned), format="json").status_code == 201
    response = api.post(URL, body(pinned), format="json")
    assert response.status_code == 400
    assert fields(response) == {"name": "an evaluation suite with this name already exists in "
                                "the team"}  # fmt: skip
    assert EvaluationSuite.objects.count() == 1


def test_viewers_read_and_only_editors_write(api, client_for, teammate, pinned):
    suite_id = api.post(URL, body(pinned), format="json").json()["id"]
    viewer = client_for(teammate)
    assert viewer.get(f"{URL}{suite_id}/").status_code == 200
    assert viewer.post(URL, body(pinned, name="mine"), format="json").status_code == 403
    assert viewer.patch(f"{URL}{suite_id}/", {"k": 3}, format="json").status_code == 403
    assert viewer.delete(f"{URL}{suite_id}/").status_code == 403
    assert EvaluationSuite.objects.get().k == 2


def test_another_teams_suite_is_a_404(api, client_for, outsider, pinned, sent):
    suite_id = api.post(URL, body(pinned), format="json").json()["id"]
    other = client_for(outsider)
    assert other.get(URL).json()["results"] == []
    for method in ("get", "patch", "delete"):
        assert getattr(other, method)(f"{URL}{suite_id}/", {}, format="json").status_code == 404
    start = {"team": "elsewhere", "suite": suite_id, "model": TINY_MODEL}
    response = other.post("/api/v1/evaluations/", start, format="json")
    assert response.status_code == 400
    assert fields(response) == {"suite": f"no evaluation suite {suite_id} in the team"}
    assert not EvaluationJob.objects.exists()


def test_an_evaluation_from_a_suite_copies_it_and_records_it(api, pinned, sent):
    suite = api.post(URL, body(pinned, temperature=0.5, seed=3), format="json").json()
    start = {"team": "reasoning", "suite": suite["id"], "model": TINY_MODEL}
    response = api.post("/api/v1/evaluations/", start, format="json")
    assert response.status_code == 202, response.json()
    job = response.json()
    assert job["suite"] == suite["id"] and job["families"] == suite["families"]
    assert (job["k"], job["temperature"], job["seed"], job["max_tasks"]) == (2, 0.5, 3, 200)
    in_use = api.get(f"{URL}{suite['id']}/").json()
    assert in_use["jobs"] == 1
    refused = api.patch(f"{URL}{suite['id']}/", {"k": 8}, format="json")
    assert refused.status_code == 409 and "used by 1 evaluation job" in fields(refused)["suite"]
    assert api.delete(f"{URL}{suite['id']}/").status_code == 409


def test_an_evaluation_takes_a_suite_or_families_not_both(api, pinned, sent):
    suite = api.post(URL, body(pinned), format="json").json()
    families = body(pinned)["families"]
    start = {"team": "reasoning", "model": TINY_MODEL}
    both = {**start, "suite": suite["id"], "families": families, "k": 3}
    response = api.post("/api/v1/evaluations/", both, format="json")
    assert response.status_code == 400 and set(fields(response)) == {"families", "k"}
    response = api.post("/api/v1/evaluations/", start, format="json")
    assert fields(response) == {"families": "give families or a suite"}
    assert not EvaluationJob.objects.exists()
    plain = api.post("/api/v1/evaluations/", {**start, "families": families}, format="json")
    assert plain.status_code == 202 and plain.json()["suite"] is None and plain.json()["k"] == 4


def test_a_suite_and_an_evaluation_take_at_least_one_family_as_the_schema_states(api, pinned, sent):
    schemas = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    for name in ("EvaluationSuiteWriteRequest", "EvaluationCreateRequest"):
        assert schemas[name]["properties"]["families"]["minItems"] == 1
    start = {"team": "reasoning", "model": TINY_MODEL, "families": []}
    for url, empty in ((URL, body(pinned, families=[])), ("/api/v1/evaluations/", start)):
        response = api.post(url, empty, format="json")
        assert response.status_code == 400 and set(fields(response)) == {"families"}
    assert not EvaluationSuite.objects.exists() and not EvaluationJob.objects.exists()

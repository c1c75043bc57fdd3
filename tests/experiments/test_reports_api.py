"""/api/v1/evaluations/ and /api/v1/reports/: starting evaluations, reports and their review,
per persona (owner, teammate, outsider)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from unittest import mock

import pytest

from crucible.accounts.models import AuditEvent, Membership, Role
from experiments.catalogue import TINY_MODEL
from experiments.jobs import RUN_EVALUATION
from experiments.models import Checkpoint, EvaluationJob, EvaluationState, Experiment, Run
from tests.experiments.reports_setup import finished_job
from tests.experiments.runs_setup import digit_verifier, digit_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent():
    with mock.patch("crucible.jobs.send") as send:
        yield send


@pytest.fixture
def pinned(owner, team):
    return digit_version(owner, team), digit_verifier(owner, team)


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


def evaluate(client, pinned, **body):
    version, verifier = pinned
    families = [{"pool_version": version.pk, "verifier_version": verifier.pk}]
    return client.post(
        "/api/v1/evaluations/", {"team": "reasoning", "families": families, **body}, format="json"
    )


def checkpoint(owner, team, tmp_path: Path) -> Checkpoint:
    experiment = Experiment.objects.create(team=team, name="sort", config={}, config_hash="x")
    run = Run.objects.create(experiment=experiment, team=team, number=1, created_by=owner)
    (tmp_path / "step-000004" / "model").mkdir(parents=True)
    return Checkpoint.objects.create(run=run, step=4, path=str(tmp_path / "step-000004"))


# --- evaluation jobs -----------------------------------------------------------------------


def test_it_queues_an_evaluation_of_a_checkpoint(
    api, owner, team, pinned, sent, tmp_path, django_capture_on_commit_callbacks
):
    saved = checkpoint(owner, team, tmp_path)
    with django_capture_on_commit_callbacks(execute=True):
        response = evaluate(api, pinned, checkpoint=saved.pk, k=2)
    assert response.status_code == 202, response.json()
    body = response.json()
    assert body["subject"] == "sort run 1, step 4" and body["state"] == "queued"
    assert body["families"][0]["family"] == "digits" and body["families"][0]["threshold_pts"] == 2
    sent.assert_called_once_with(RUN_EVALUATION, body["id"])
    assert AuditEvent.objects.filter(action="evaluation.started").count() == 1


def test_it_refuses_a_checkpoint_that_is_gone_and_saves_nothing(
    api, owner, team, pinned, sent, tmp_path
):
    saved = checkpoint(owner, team, tmp_path)
    shutil.rmtree(tmp_path / "step-000004")
    response = evaluate(api, pinned, checkpoint=saved.pk)
    assert response.status_code == 400
    assert fields(response) == {"checkpoint": f"checkpoint {saved.pk} is no longer on disk"}
    response = evaluate(api, pinned, checkpoint=saved.pk + 100)
    assert fields(response) == {"checkpoint": f"checkpoint {saved.pk + 100} does not exist"}
    assert not EvaluationJob.objects.exists() and not sent.called


def test_it_names_each_bad_field(api, owner, team, pinned, outsider, sent):
    response = evaluate(api, pinned, model="no-such-model")
    assert response.status_code == 400 and fields(response)["model"].startswith("unknown model")
    elsewhere = digit_version(outsider, outsider.teams.get(), slug="theirs")
    response = api.post(
        "/api/v1/evaluations/",
        {
            "team": "reasoning", "model": TINY_MODEL,
            "families": [{"pool_version": elsewhere.pk, "verifier_version": pinned[1].pk}],
        },
        format="json",
    )  # fmt: skip
    assert fields(response) == {"families[0].pool_version": "no such pool version in the team"}


def test_it_lets_a_viewer_read_but_not_start_and_hides_jobs_from_outsiders(
    api, client_for, teammate, outsider, owner, team, pinned, sent
):
    job = finished_job(owner, team, [4, 4])
    assert evaluate(client_for(teammate), pinned, model=TINY_MODEL).status_code == 403
    assert client_for(teammate).get(f"/api/v1/evaluations/{job.pk}/").status_code == 200
    assert client_for(outsider).get(f"/api/v1/evaluations/{job.pk}/").status_code == 404


# --- reports and review --------------------------------------------------------------------


@pytest.fixture
def jobs(owner, team):
    return finished_job(owner, team, [0] * 30, "base"), finished_job(owner, team, [4] * 30)


def make_report(client, jobs):
    base, cand = jobs
    return client.post(
        "/api/v1/reports/", {"candidate": cand.pk, "baseline": base.pk}, format="json"
    )


def test_it_compares_candidate_and_baseline_per_family_with_an_interval(api, jobs):
    response = make_report(api, jobs)
    assert response.status_code == 201, response.json()
    body = response.json()
    (row,) = body["figures"]["families"]
    assert (row["candidate"], row["baseline"], row["verdict"]) == (1.0, 0.0, "improved")
    assert row["low"] <= row["difference"] <= row["high"]
    assert body["headline"] == "no family regressed; improved: digits"
    assert body["state"] == "draft" and body["version"] == 1
    assert body["lineage"] == "candidate vs base"
    profile = body["figures"]["baseline_profile"]
    assert profile["errors_by_layer"]["digits"] == {"semantic": {"wrong_answer": 120}}
    assert [lv["difficulty"] for lv in profile["by_difficulty"]["digits"]] == [2, 3]


def test_it_says_which_family_regressed(api, jobs):
    base, cand = jobs
    response = api.post(
        "/api/v1/reports/", {"candidate": base.pk, "baseline": cand.pk}, format="json"
    )
    assert response.json()["headline"] == "regressed: digits (−100.0 pts, CI [−100.0, −100.0])"


def test_it_refuses_a_report_on_an_unfinished_job(api, owner, team, jobs):
    base, cand = jobs
    EvaluationJob.objects.filter(pk=cand.pk).update(state=EvaluationState.RUNNING)
    response = make_report(api, jobs)
    assert response.status_code == 400
    assert fields(response) == {
        "candidate": f"evaluation {cand.pk} has not succeeded (it is running)"
    }


def test_review_goes_from_draft_to_approved_and_never_carries_to_a_new_version(
    api, client_for, editor, jobs, owner, team
):
    report = make_report(api, jobs).json()
    url = f"/api/v1/reports/{report['id']}/"
    reviewer = client_for(editor)
    early = reviewer.post(url + "review/", {"decision": "approve"}, format="json")
    assert early.status_code == 400 and "not in review" in fields(early)["state"]
    assert api.post(url + "submit/").json()["state"] == "in_review"
    assert api.post(url + "submit/").status_code == 400
    approved = reviewer.post(
        url + "review/", {"decision": "approve", "note": "fine"}, format="json"
    )
    assert approved.status_code == 200, approved.json()
    assert approved.json()["state"] == "approved"
    assert approved.json()["reviews"][0]["reviewer"] == "editor"
    again = make_report(api, jobs).json()
    assert again["version"] == 2 and again["state"] == "draft" and again["reviews"] == []
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {"report.created", "report.submitted", "report.approve"} <= actions


def test_it_counts_approvals_against_the_team_rule_and_bars_authors_when_told(
    api, client_for, teammate, editor, jobs
):
    policy = api.put(
        "/api/v1/teams/reasoning/review-policy/",
        {"required_approvals": 2, "authors_may_approve": False,
         "approver_roles": ["viewer", "editor", "admin"]},
        format="json",
    )  # fmt: skip
    assert policy.status_code == 200, policy.json()
    assert (
        client_for(teammate)
        .put(
            "/api/v1/teams/reasoning/review-policy/",
            {"required_approvals": 1, "authors_may_approve": True},
            format="json",
        )
        .status_code
        == 403
    )
    report = make_report(api, jobs).json()
    url = f"/api/v1/reports/{report['id']}/"
    api.post(url + "submit/")
    own = api.post(url + "review/", {"decision": "approve"}, format="json")
    assert own.status_code == 400
    assert fields(own) == {"decision": "the team does not let a report's author review it"}
    one = client_for(teammate).post(url + "review/", {"decision": "approve"}, format="json")
    assert one.json()["state"] == "in_review" and one.json()["required_approvals"] == 2
    two = client_for(editor).post(url + "review/", {"decision": "approve"}, format="json")
    assert two.json()["state"] == "approved"


def test_a_request_for_changes_sends_the_report_back(api, client_for, editor, jobs):
    report = make_report(api, jobs).json()
    url = f"/api/v1/reports/{report['id']}/"
    api.post(url + "submit/")
    back = client_for(editor).post(
        url + "review/",
        {"decision": "request_changes", "note": "evaluate more tasks"},
        format="json",
    )
    assert back.json()["state"] == "changes_requested"


def test_comments_thread_on_the_report_or_a_family_row(api, client_for, teammate, jobs):
    report = make_report(api, jobs).json()
    url = f"/api/v1/reports/{report['id']}/comments/"
    first = api.post(url, {"body": "digits jumped", "family": "digits"}, format="json")
    assert first.status_code == 201, first.json()
    reply = client_for(teammate).post(
        url, {"body": "the interval is tight", "parent": first.json()["id"]}, format="json"
    )
    assert reply.json()["family"] == "digits" and reply.json()["parent"] == first.json()["id"]
    bad = api.post(url, {"body": "?", "family": "nope", "parent": 99999}, format="json")
    assert fields(bad) == {
        "family": "the report has no family 'nope'",
        "parent": "comment 99999 is not on this report",
    }
    comments = api.get(f"/api/v1/reports/{report['id']}/").json()["comments"]
    assert [c["author"] for c in comments] == ["owner", "teammate"]


def test_outsiders_neither_see_nor_comment_on_a_teams_report(api, client_for, outsider, jobs):
    report = make_report(api, jobs).json()
    other = client_for(outsider)
    assert other.get(f"/api/v1/reports/{report['id']}/").status_code == 404
    response = other.post(
        f"/api/v1/reports/{report['id']}/comments/", {"body": "hi"}, format="json"
    )
    assert response.status_code == 404
    assert other.get("/api/v1/reports/").json()["results"] == []
    Membership.objects.filter(user=outsider).update(role=Role.ADMIN)
    assert other.get("/api/v1/teams/reasoning/review-policy/").status_code == 404


def test_it_exports_a_self_contained_html_page_and_every_figure_as_json(
    api, client_for, outsider, jobs
):
    report = make_report(api, jobs).json()
    url = f"/api/v1/reports/{report['id']}/export/"
    page = api.get(url)
    assert page.status_code == 200 and page["Content-Type"] == "text/html; charset=utf-8"
    assert page["Content-Disposition"] == f'attachment; filename="report-{report["id"]}-v1.html"'
    html = page.content.decode()
    assert "no family regressed; improved: digits" in html and html.count("<svg") == 2
    assert "<script" not in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    data = api.get(url, {"as": "json"})
    assert data["Content-Type"] == "application/json; charset=utf-8"
    assert json.loads(data.content)["figures"] == report["figures"]
    assert client_for(outsider).get(url).status_code == 404


# --- who may review, and overriding a regression ----------------------------------------------


def submitted(api, jobs, regressed: bool = False) -> str:
    base, cand = jobs
    pair = {"candidate": base.pk, "baseline": cand.pk} if regressed else None
    made = api.post("/api/v1/reports/", pair, format="json") if pair else make_report(api, jobs)
    url = f"/api/v1/reports/{made.json()['id']}/"
    assert api.post(url + "submit/").json()["state"] == "in_review"
    return url


def test_it_counts_no_approval_from_a_viewer(api, client_for, teammate, editor, jobs, tmp_path):
    url = submitted(api, jobs)
    viewer = client_for(teammate).post(url + "review/", {"decision": "approve"}, format="json")
    assert viewer.status_code == 403
    assert fields(viewer) == {
        "decision": "the team's review policy lets editor and admin review; you are viewer"
    }
    changes = client_for(teammate).post(
        url + "review/", {"decision": "request_changes"}, format="json"
    )
    assert changes.status_code == 403
    shown = api.get(url).json()
    assert (shown["state"], shown["reviews"], shown["approver_roles"]) == (
        "in_review", [], ["editor", "admin"]
    )  # fmt: skip
    # A viewer still takes part in the discussion.
    said = client_for(teammate).post(url + "comments/", {"body": "looks fine"}, format="json")
    assert said.status_code == 201


def test_it_does_not_let_an_admin_approve_their_own_report_by_default(api, jobs):
    url = submitted(api, jobs)
    own = api.post(url + "review/", {"decision": "approve"}, format="json")
    assert own.status_code == 400
    assert fields(own) == {"decision": "the team does not let a report's author review it"}
    shown = api.get(url).json()
    assert (shown["state"], shown["authors_may_approve"]) == ("in_review", False)


def test_it_stops_counting_an_approval_whose_reviewer_lost_the_role(
    api, client_for, editor, teammate, jobs, team
):
    Membership.objects.filter(user=teammate).update(role=Role.EDITOR)
    api.put("/api/v1/teams/reasoning/review-policy/", {"required_approvals": 2}, format="json")
    url = submitted(api, jobs)
    first = client_for(teammate).post(url + "review/", {"decision": "approve"}, format="json")
    assert first.json()["state"] == "in_review"
    Membership.objects.filter(user=teammate).update(role=Role.VIEWER)
    second = client_for(editor).post(url + "review/", {"decision": "approve"}, format="json")
    assert second.json()["state"] == "in_review"


def test_it_needs_a_written_override_to_approve_a_regressed_family(api, client_for, editor, jobs):
    url = submitted(api, jobs, regressed=True)
    reviewer = client_for(editor)
    shown = api.get(url).json()
    assert shown["regressed_families"] == ["digits"]
    for body in (
        {"decision": "approve", "note": "fine by me"},
        {"decision": "approve", "override_reason": "   "},
    ):
        refused = reviewer.post(url + "review/", body, format="json")
        assert refused.status_code == 400, body
        assert fields(refused) == {
            "override_reason": "digits regressed: approving needs a written override reason"
        }
    odd = reviewer.post(
        url + "review/", {"decision": "request_changes", "override_reason": "x"}, format="json"
    )
    assert fields(odd) == {"override_reason": "only an approval overrides a regression"}
    assert api.get(url).json()["state"] == "in_review"

    reason = "digits <b>drops</b> on level 3 only; the new format is worth it"
    approved = reviewer.post(
        url + "review/", {"decision": "approve", "override_reason": reason}, format="json"
    )
    assert approved.status_code == 200, approved.json()
    body = approved.json()
    assert body["state"] == "approved" and body["reviews"][0]["override_reason"] == reason
    audit = AuditEvent.objects.get(action="report.regression_overridden")
    assert audit.changes == {"families": ["digits"], "reason": reason}
    assert audit.actor.username == "editor"
    html = api.get(url + "export/").content.decode()
    assert "digits &lt;b&gt;drops&lt;/b&gt; on level 3 only" in html and "<b>drops" not in html
    assert "Overrode the regression of digits:" in html


def test_it_refuses_an_override_where_nothing_regressed(api, client_for, editor, jobs):
    url = submitted(api, jobs)
    response = client_for(editor).post(
        url + "review/", {"decision": "approve", "override_reason": "just in case"}, format="json"
    )
    assert response.status_code == 400
    assert fields(response) == {
        "override_reason": "no family regressed: there is nothing to override"
    }


def test_it_keeps_the_policy_fields_a_multipart_put_leaves_out(api, client_for, teammate):
    url = "/api/v1/teams/reasoning/review-policy/"
    set_up = api.put(url, {"authors_may_approve": True}, format="json")
    assert set_up.status_code == 200, set_up.json()
    response = api.put(url, {"required_approvals": 2}, format="multipart")
    assert response.status_code == 200, response.json()
    assert response.json() == {
        "required_approvals": 2, "authors_may_approve": True, "approver_roles": ["editor", "admin"]
    }  # fmt: skip
    roles = api.put(url, {"approver_roles": ["admin", "viewer"]}, format="multipart")
    assert roles.json()["approver_roles"] == ["viewer", "admin"]
    assert api.get(url).json() == {
        "required_approvals": 2, "authors_may_approve": True, "approver_roles": ["viewer", "admin"]
    }  # fmt: skip
    bad = api.put(url, {"approver_roles": ["boss"], "required_approvals": 0}, format="json")
    assert bad.status_code == 400
    assert set(fields(bad)) == {"approver_roles[0]", "required_approvals"}
    assert (
        client_for(teammate).put(url, {"required_approvals": 1}, format="json").status_code == 403
    )


def test_it_lists_the_reports_that_use_an_evaluation(api, owner, team, jobs):
    base, cand = jobs
    other = finished_job(owner, team, [2] * 30, "other")
    made = make_report(api, jobs).json()
    api.post("/api/v1/reports/", {"candidate": other.pk, "baseline": base.pk}, format="json")
    as_candidate = api.get("/api/v1/reports/", {"evaluation": cand.pk}).json()["results"]
    as_baseline = api.get("/api/v1/reports/", {"evaluation": base.pk}).json()["results"]
    assert [r["id"] for r in as_candidate] == [made["id"]]
    assert len(as_baseline) == 2
    assert api.get("/api/v1/reports/", {"evaluation": 0}).json()["results"] == []


def test_it_refuses_a_baseline_that_shares_no_task_and_names_it(api, owner, team, jobs):
    _, cand = jobs
    elsewhere = finished_job(owner, team, [1] * 5, "elsewhere", family="sums")
    response = api.post(
        "/api/v1/reports/", {"candidate": cand.pk, "baseline": elsewhere.pk}, format="json"
    )
    assert response.status_code == 400
    assert "shares no held-out task" in fields(response)["baseline"]


def test_an_evaluation_shows_its_results_per_family(api, jobs, client_for, outsider):
    _, cand = jobs
    body = api.get(f"/api/v1/evaluations/{cand.pk}/").json()
    assert body["results"] == [
        {"family": "digits", "tasks": 30, "k": 4, "pass_at_1": 1.0, "pass_at_k": 1.0,
         "mean_turns": None, "agreement": None}
    ]  # fmt: skip
    assert "results" not in api.get("/api/v1/evaluations/").json()["results"][0]
    assert client_for(outsider).get(f"/api/v1/evaluations/{cand.pk}/").status_code == 404


def test_the_audit_log_names_a_report_by_lineage_and_links_it_and_its_evaluations(api, jobs):
    base, cand = jobs
    report = make_report(api, jobs).json()
    events = api.get("/api/v1/audit/", {"target_type": "experiments.evaluationreport"}).json()
    (made,) = events["results"]
    assert (made["action"], made["target_label"]) == ("report.created", "candidate vs base v1")
    assert made["target_path"] == f"/reports/{report['id']}"
    api.post(f"/api/v1/reports/{report['id']}/submit/")
    submitted = api.get("/api/v1/audit/", {"action": "report.submitted"}).json()["results"]
    assert submitted[0]["target_path"] == f"/reports/{report['id']}"

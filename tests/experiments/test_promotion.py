"""/api/v1/promotions/: a checkpoint is promoted only on an approved report whose candidate it
is, the newest of its lineage; and what a report carries for the review around it (its run's
signals, comments on a plot)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from crucible.accounts.models import AuditEvent, Membership, Role
from experiments.models import Checkpoint, Experiment, Promotion, Run
from experiments.services import reports
from tests.experiments.reports_setup import finished_job

pytestmark = pytest.mark.django_db
URL = "/api/v1/promotions/"


def fields(response) -> dict[str, str]:
    return {e["field"]: e["message"] for e in response.json()["errors"]}


@pytest.fixture
def checkpoint(owner, team, tmp_path: Path) -> Checkpoint:
    experiment = Experiment.objects.create(team=team, name="sort", config={}, config_hash="x")
    health = {"step": 40, "signals": [{"name": "kl_spike", "label": "KL spike", "state": "ok",
              "sentence": "KL 0.01", "since_step": None, "value": 0.01, "threshold": 6.0,
              "pause_on_breach": False}]}  # fmt: skip
    run = Run.objects.create(
        experiment=experiment, team=team, number=1, created_by=owner, step=42, health=health
    )
    (tmp_path / "step-000040" / "model").mkdir(parents=True)
    return Checkpoint.objects.create(run=run, step=40, path=str(tmp_path / "step-000040"))


def second_reviewer(team):
    """An editor of ``team`` other than the report's author: by default a team lets neither
    viewers nor a report's author approve it."""
    user, _ = get_user_model().objects.get_or_create(username=f"reviewer-of-{team.slug}")
    Membership.objects.get_or_create(user=user, team=team, defaults={"role": Role.EDITOR})
    return user


def report_on(
    owner, team, checkpoint: Checkpoint | None, approve: bool = True, regressed: bool = False
):
    """A report on ``checkpoint`` (a base model when None), approved by a second reviewer
    unless told; ``regressed`` makes its only family drop (approved with a written override)."""
    subject = "sort run 1, step 40" if checkpoint else "tiny-digits-sft"
    better, worse = [4, 4, 3, 4], [1, 2, 1, 0]
    cand, base = (worse, better) if regressed else (better, worse)
    candidate = finished_job(owner, team, cand, subject=subject)
    candidate.checkpoint = checkpoint
    candidate.save()
    baseline = finished_job(owner, team, base, subject="tiny-digits")
    report = reports.create(owner, team, candidate, baseline)
    if approve:
        reports.submit(owner, report)
        why = "digits trades accuracy for the new format; accepted" if regressed else ""
        report = reports.review(second_reviewer(team), report, "approve", override_reason=why)
    return report


def promote(client, checkpoint: Checkpoint, report, note: str = ""):
    body = {"checkpoint": checkpoint.pk, "report": report.pk, "note": note}
    return client.post(URL, body, format="json")


def test_it_promotes_a_checkpoint_on_its_approved_report(api, owner, team, checkpoint):
    report = report_on(owner, team, checkpoint)
    response = promote(api, checkpoint, report, "ship it")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["checkpoint"], body["report"], body["report_version"]) == (
        checkpoint.pk,
        report.pk,
        1,
    )
    assert body["promoted_by"] == "owner" and body["note"] == "ship it" and body["step"] == 40
    audit = AuditEvent.objects.get(action="checkpoint.promoted")
    assert audit.changes == {"report": report.pk, "version": 1, "note": "ship it", "overrides": []}
    # The run's checkpoints and the report both say so.
    listed = api.get(f"/api/v1/runs/{checkpoint.run_id}/checkpoints/").json()
    assert listed[0]["promotion"]["report"] == report.pk
    shown = api.get(f"/api/v1/reports/{report.pk}/").json()
    assert shown["candidate_checkpoint"] == checkpoint.pk and shown["promotion"]["id"] == body["id"]
    assert api.get(URL).json()["results"][0]["id"] == body["id"]


def test_it_refuses_a_report_in_review_and_saves_nothing(api, owner, team, checkpoint):
    report = report_on(owner, team, checkpoint, approve=False)
    reports.submit(owner, report)
    response = promote(api, checkpoint, report)
    assert response.status_code == 409
    assert fields(response) == {"report": f"report {report.pk} v1 is in review, not approved"}
    assert not Promotion.objects.exists()
    assert api.get(f"/api/v1/reports/{report.pk}/").json()["promotion"] is None


def test_an_approval_does_not_carry_over_to_a_newer_version(api, owner, team, checkpoint):
    first = report_on(owner, team, checkpoint)
    second = reports.create(owner, team, first.candidate, first.baseline)
    response = promote(api, checkpoint, first)
    assert response.status_code == 409
    assert "superseded by v2" in fields(response)["report"]
    assert promote(api, checkpoint, second).status_code == 409  # v2 is a draft


def test_it_refuses_a_report_on_another_checkpoint_or_a_base_model(
    api, owner, team, checkpoint, tmp_path
):
    other = Checkpoint.objects.create(run=checkpoint.run, step=80, path=str(tmp_path / "x"))
    report = report_on(owner, team, checkpoint)
    response = promote(api, other, report)
    assert response.status_code == 409
    assert "not checkpoint" in fields(response)["report"]
    base = report_on(owner, team, None)
    assert fields(promote(api, checkpoint, base))["report"].startswith(
        f"report {base.pk} evaluates tiny-digits-sft, not checkpoint {checkpoint.pk}"
    )


def test_a_checkpoint_is_promoted_once(api, owner, team, checkpoint):
    report = report_on(owner, team, checkpoint)
    assert promote(api, checkpoint, report).status_code == 201
    again = promote(api, checkpoint, report)
    assert again.status_code == 409
    assert fields(again) == {"checkpoint": f"checkpoint {checkpoint.pk} is already promoted"}


def test_a_viewer_cannot_promote_and_an_outsider_sees_nothing(
    client_for, owner, team, teammate, outsider, checkpoint
):
    report = report_on(owner, team, checkpoint)
    assert promote(client_for(teammate), checkpoint, report).status_code == 403
    assert promote(client_for(outsider), checkpoint, report).status_code == 404
    assert client_for(outsider).get(URL).json()["results"] == []
    assert not Promotion.objects.exists()


def test_a_report_freezes_its_runs_signals_and_takes_comments_on_a_plot(
    api, owner, team, checkpoint
):
    report = report_on(owner, team, checkpoint, approve=False)
    signals = api.get(f"/api/v1/reports/{report.pk}/").json()["figures"]["signals"]
    assert signals["run"] == checkpoint.run_id and signals["run_step"] == 42
    assert signals["step"] == 40 and signals["signals"][0]["name"] == "kl_spike"
    Run.objects.filter(pk=checkpoint.run_id).update(health={})  # the run moves on; the report not
    url = f"/api/v1/reports/{report.pk}/"
    assert api.get(url).json()["figures"]["signals"]["step"] == 40

    made = api.post(
        f"{url}comments/", {"body": "why the tail?", "chart": "worst_tasks"}, format="json"
    )
    assert made.status_code == 201 and made.json()["chart"] == "worst_tasks"
    reply = api.post(
        f"{url}comments/", {"body": "two tasks", "parent": made.json()["id"]}, format="json"
    )
    assert reply.json()["chart"] == "worst_tasks"
    bad = api.post(f"{url}comments/", {"body": "?", "chart": "vibes"}, format="json")
    assert bad.status_code == 400 and fields(bad)["chart"].startswith(
        "the report has no plot 'vibes'"
    )


def test_a_base_model_report_has_no_signals_to_comment_on(api, owner, team):
    report = report_on(owner, team, None, approve=False)
    url = f"/api/v1/reports/{report.pk}/"
    shown = api.get(url).json()
    assert shown["figures"]["signals"] is None
    assert [c["key"] for c in shown["charts"]] == [
        "success_by_level", "error_types", "pass_at_k", "worst_tasks"
    ]  # fmt: skip
    bad = api.post(f"{url}comments/", {"body": "?", "chart": "signals"}, format="json")
    assert bad.status_code == 400


def test_the_html_export_lists_the_runs_signals_and_plot_comments(api, owner, team, checkpoint):
    report = report_on(owner, team, checkpoint, approve=False)
    reports.comment(owner, report, "flat tail", chart="worst_tasks")
    html = api.get(f"/api/v1/reports/{report.pk}/export/").content.decode()
    assert "Reward-hacking and drift signals" in html and "checked at step 40" in html
    assert "<td>KL spike</td><td class=''>ok</td><td>KL 0.01</td>" in html
    assert "owner on the plot Long tail: flat tail" in html


def test_it_carries_a_regression_override_into_the_promotion_and_the_lineage(
    api, owner, team, checkpoint
):
    report = report_on(owner, team, checkpoint, regressed=True)
    assert report.state == "approved" and reports.regressed_families(report) == ["digits"]
    assert promote(api, checkpoint, report, "ship with the drop").status_code == 201
    override = {
        "reviewer": f"reviewer-of-{team.slug}",
        "reason": "digits trades accuracy for the new format; accepted",
        "families": ["digits"],
    }
    audit = AuditEvent.objects.get(action="checkpoint.promoted")
    assert audit.changes["overrides"] == [override]
    model = api.post("/api/v1/registered-models/", {"team": team.slug, "name": "m"}, format="json")
    version = api.post(
        "/api/v1/model-versions/",
        {"model": model.json()["id"], "checkpoint": checkpoint.pk},
        format="json",
    )
    assert version.status_code == 201, version.json()
    assert version.json()["lineage"]["promotion"]["overrides"] == [override]
    assert version.json()["promotion"]["overrides"] == [override]


def test_it_refuses_a_regressed_report_approved_without_a_written_override(
    api, owner, team, checkpoint
):
    # An approval recorded before overrides were required: the report says approved, but
    # nobody wrote why its regressed family is acceptable.
    report = report_on(owner, team, checkpoint, approve=False, regressed=True)
    reports.submit(owner, report)
    report.reviews.create(reviewer=owner, decision="approve")
    type(report).objects.filter(pk=report.pk).update(state="approved")
    response = promote(api, checkpoint, report)
    assert response.status_code == 409
    assert fields(response) == {
        "report": f"report {report.pk} v1 has regressed families (digits) and no approval "
        "overrides them with a reason"
    }
    assert not Promotion.objects.exists()

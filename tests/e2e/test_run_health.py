"""The run page's health panel in real Chromium: a run whose reward climbs while held-out
success stays flat is paused by the signal, and the page says why."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import screenshot


def paused_by_signal(user) -> int:  # type: ignore[no-untyped-def]
    from experiments.services import experiments, health, runs
    from experiments.services.recording import RunRecorder
    from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version

    team = user.memberships.get().team
    advertise()
    # Pausing on a breach is the team's choice; this team made it.
    health.update_settings(user, team, {"signals": {"reward_vs_heldout": {"pause_on_breach": True}}})
    pinned = digit_version(user, team), digit_verifier(user, team)
    config = config_for(*pinned, hyperparameters={"max_steps": 100})
    experiment = experiments.create_experiment(user, team, name="Sort", config=config)
    run = runs.claim(runs.launch(user, experiment).pk, "celery@w")
    recorder = RunRecorder(run, rollout_groups=0, sources={})
    step = 0
    while not runs.should_stop(run):
        step += 1
        metrics = {"reward/mean": 0.2 + 0.005 * step, "entropy": 0.8, "kl": 0.01}
        if step % 10 == 0:
            metrics["eval/success/digits"] = 0.31
        recorder.log(step, metrics)
        recorder.progress(step, 100, metrics)
    return run.pk


def test_the_run_page_shows_the_signal_that_paused_the_run(signed_in_page, e2e_user):  # type: ignore[no-untyped-def]
    run_id = paused_by_signal(e2e_user)
    page = signed_in_page
    page.goto(f"/runs/{run_id}")
    panel = page.get_by_role("region", name="Run health")
    expect(panel).to_contain_text("at step 40")
    breached = panel.locator('[data-state="breached"]')
    expect(breached).to_contain_text("Reward rising, held-out flat")
    expect(breached).to_contain_text("held-out success stayed at 0.31 over steps 1–40")
    expect(breached.get_by_role("link", name="since step 40")).to_have_attribute(
        "href", f"/runs/{run_id}/rollouts?step=40"
    )
    expect(page.get_by_text("Paused: training reward rose 0.20")).to_be_visible()
    screenshot(page, "run-health")

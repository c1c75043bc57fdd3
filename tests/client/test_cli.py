"""The ``crucible`` command against a live server: log in (a token, or a password that issues
one), list runs, launch an experiment from a YAML file and watch its run to its end, compare
runs, and the API's refusals said on stderr with exit status 1."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time

import pytest
import yaml
from crucible_client import Crucible
from crucible_client.cli import main
from crucible_client.config import config_path

from experiments.models import EvaluationJob
from experiments.models.evaluation import EvaluationState
from tests.experiments.metrics_setup import make_run
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_it_logs_in_with_a_token_and_keeps_it_for_the_owner_only(server, token, team, capsys):
    assert main(["login", "--url", server.url, "--token", token]) == 0
    assert "logged in" in capsys.readouterr().out
    saved = json.loads(config_path().read_text())
    assert saved == {"url": server.url, "token": token}
    assert stat.S_IMODE(config_path().stat().st_mode) == 0o600
    run = make_run(team, name="sorting")
    assert main(["runs", "list"]) == 0
    listed = capsys.readouterr().out
    assert f"{run.pk}" in listed and "running" in listed and "sorting" in listed


def test_it_refuses_to_save_a_wrong_token(server, capsys):
    assert main(["login", "--url", server.url, "--token", "crc_wrong"]) == 1
    assert "401" in capsys.readouterr().err and not config_path().exists()


def test_it_logs_in_with_a_password_by_issuing_a_token(server, owner, team, monkeypatch, capsys):
    monkeypatch.setenv("CRUCIBLE_PASSWORD", "correct horse battery")
    assert main(["login", "--url", server.url, "--username", "owner", "--team", team.slug]) == 0
    issued = json.loads(config_path().read_text())["token"]
    assert issued.startswith("crc_") and "correct horse" not in config_path().read_text()
    assert Crucible(server.url, issued).me()["username"] == "owner"


def test_it_launches_an_experiment_from_yaml_and_watches_its_run_end(
    server, token, owner, team, tmp_path, capsys
):
    main(["login", "--url", server.url, "--token", token])
    advertise()
    config = config_for(digit_version(owner, team), digit_verifier(owner, team))
    spec = tmp_path / "exp.yaml"
    spec.write_text(yaml.safe_dump({"team": team.slug, "name": "from yaml", "config": config}))
    assert main(["experiments", "launch", "-f", str(spec)]) == 0
    launched = capsys.readouterr().out
    run_id = int(launched.split("run ")[1].split()[0])
    crucible = Crucible(server.url, token)
    assert crucible.runs.get(run_id)["experiment_name"] == "from yaml"
    # `runs watch` follows the socket until the run ends; it exits 1 since it was cancelled.
    threading.Timer(2.0, lambda: crucible.runs.cancel(run_id)).start()
    started = time.monotonic()
    assert main(["runs", "watch", str(run_id)]) == 1
    assert f"run {run_id} cancelled" in capsys.readouterr().out
    assert time.monotonic() - started < 60


def test_it_compares_runs_and_says_the_apis_refusal_on_stderr(server, token, team, capsys):
    main(["login", "--url", server.url, "--token", token])
    first, second = make_run(team, name="a"), make_run(team, name="b")
    capsys.readouterr()
    assert main(["compare", str(first.pk), str(second.pk), "--json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in compared["runs"]] == [first.pk, second.pk]
    assert main(["evaluate", "--team", team.slug, "--model", "tiny-digit-sort"]) == 1
    assert "families: give families or a suite" in capsys.readouterr().err


def test_it_is_a_console_command_that_says_when_nobody_logged_in(tmp_path):
    env = {**os.environ, "CRUCIBLE_CONFIG_DIR": str(tmp_path)}
    env.pop("CRUCIBLE_TOKEN", None)
    done = subprocess.run(
        [sys.executable, "-m", "crucible_client.cli", "runs", "list"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and "not logged in" in done.stderr


def test_it_finds_and_finishes_an_outside_run(server, token, team, capsys):
    main(["login", "--url", server.url, "--token", token])
    crucible = Crucible(server.url, token)
    kept = crucible.runs.init(team.slug, name="kept", tags={"stage": "sweep"})
    crucible.runs.init(team.slug, name="other", tags={"stage": "final"})
    capsys.readouterr()
    assert main(["runs", "list", "--filter", "tags.stage = sweep", "--json"]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == [kept["id"]]
    assert main(["runs", "list", "--filter", "tags.stage >"]) == 1
    assert "filter" in capsys.readouterr().err
    assert main(["runs", "finish", str(kept["id"]), "--status", "failed", "--reason", "oom"]) == 0
    assert capsys.readouterr().out.strip() == f"run {kept['id']} failed"
    assert crucible.runs.get(kept["id"])["failure_reason"] == "oom"


def test_a_script_waits_for_an_evaluation_to_end(server, token, owner, team):
    crucible = Crucible(server.url, token)
    families = [
        {
            "pool_version": digit_version(owner, team).pk,
            "verifier_version": digit_verifier(owner, team).pk,
        }
    ]
    job = crucible.evaluations.create({"team": team.slug, "families": families, "model": "tiny-digit-sort"})
    with pytest.raises(TimeoutError, match=f"evaluation {job['id']} is still queued"):
        crucible.evaluations.wait(job["id"], timeout_s=0.3, poll_s=0.1)
    # The worker's part, played by the database: the job ends while the script waits.
    ended = threading.Timer(
        1.0, lambda: EvaluationJob.objects.filter(pk=job["id"]).update(state=EvaluationState.FAILED)
    )
    ended.start()
    done = crucible.evaluations.wait(job["id"], timeout_s=30, poll_s=0.2)
    ended.join()
    assert done["id"] == job["id"] and done["state"] == "failed"

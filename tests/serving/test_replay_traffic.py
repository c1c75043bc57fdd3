"""``manage.py replay_traffic``: held-out prompts through the platform's endpoint (a live
server, token auth) to a real replica, with a progress bar and a summary."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from serving.models import CanaryState, ReplicaRole, ServedRequest
from serving.services import deployments
from tests.serving.serving_setup import Served, replica_thread
from tests.serving.test_deployments import canary, deploy, production_replica

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_it_replays_held_out_prompts_at_a_rate_and_every_answer_is_judged(
    owner, team, tmp_path, live_server
) -> None:  # type: ignore[no-untyped-def]
    served = Served(owner, tmp_path)
    served.production(served.version(sft_steps=60, step=40))
    deployment = deployments.create(
        owner, team, name="Sorter", slug="sorter", registered_model=served.model
    )
    replica = deployment.replicas.get(role=ReplicaRole.PRODUCTION)
    out, err = io.StringIO(), io.StringIO()
    with replica_thread(replica):
        call_command(
            "replay_traffic", "sorter", "--user", "owner", "--url", live_server.url,
            "--rate", "40", "--requests", "30", "--keys", "5", stdout=out, stderr=err,
        )  # fmt: skip
    text = out.getvalue()
    assert "Replaying 30 held-out prompts" in text
    assert "30/30 answered" in text and "'production': 30" in text
    assert "30/30" in err.getvalue()  # the progress bar reached the end
    rows = ServedRequest.objects.filter(deployment=deployment)
    assert rows.count() == 30
    assert not rows.filter(passed=None).exists()  # each named its task, so each was judged
    assert set(rows.values_list("key", flat=True)) == {f"user-{i}" for i in range(5)}
    held_out = {task for _, task in served.held_out(100)}
    assert set(rows.values_list("task", flat=True)) <= held_out


def test_it_says_what_is_missing(owner, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CommandError, match="no deployment 'ghost'"):
        call_command("replay_traffic", "ghost", "--token", "x")
    served = Served(owner, tmp_path)
    served.production(served.version(sft_steps=1, step=40))
    deployments.create(owner, team, name="S", slug="s", registered_model=served.model)
    with pytest.raises(CommandError, match="--user to mint one"):
        call_command("replay_traffic", "s")
    with pytest.raises(CommandError, match="trained on: digits"):
        call_command("replay_traffic", "s", "--token", "x", "--family", "gsm8k")


def test_it_stops_at_the_first_refusal_with_its_status_and_message(
    owner, team, tmp_path, live_server, settings
) -> None:  # type: ignore[no-untyped-def]
    served = Served(owner, tmp_path)
    served.production(served.version(sft_steps=1, step=40))
    deployments.create(owner, team, name="S", slug="s", registered_model=served.model)
    settings.PLATFORM_URL = live_server.url  # where the platform runs, read by default
    out = io.StringIO()
    with pytest.raises(CommandError) as refused:
        call_command(
            "replay_traffic", "s", "--token", "crc_wrong", "--requests", "200",
            "--rate", "0", "--concurrency", "2", stdout=out, stderr=io.StringIO(),
        )  # fmt: skip
    assert "stopped at the first refusal: 401: " in str(refused.value)
    assert "token" in str(refused.value).lower()  # the error body's message
    assert f"to {live_server.url}/api/v1/deployments/s/generate/" in out.getvalue()
    sent = int(out.getvalue().split(" answered")[0].rsplit("/", 1)[1])
    assert sent <= 2 + 1  # the requests in flight when it stopped, not the 200


def test_it_says_where_it_looked_when_the_platform_is_not_there(owner, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    served = Served(owner, tmp_path)
    served.production(served.version(sft_steps=1, step=40))
    deployments.create(owner, team, name="S", slug="s", registered_model=served.model)
    with pytest.raises(CommandError, match="no answer: ConnectionRefusedError") as refused:
        call_command(
            "replay_traffic", "s", "--token", "x", "--url", "http://127.0.0.1:9",
            "--requests", "50", "--concurrency", "1", stdout=io.StringIO(), stderr=io.StringIO(),
        )  # fmt: skip
    assert "is the platform at http://127.0.0.1:9? Set PLATFORM_URL" in str(refused.value)


def test_without_a_count_it_sends_until_the_canary_decides(
    api, owner, team, tmp_path, live_server
) -> None:  # type: ignore[no-untyped-def]
    served = Served(owner, tmp_path)
    served.production(served.version(sft_steps=60, step=40))
    worse = served.version(sft_steps=1, step=80, promoted=False)
    deployment = deploy(api, served)
    out = io.StringIO()
    with replica_thread(production_replica(deployment)):
        started = canary(api, "sorter", worse.pk, steps=[50], guardrails={"min_samples": 10})
        with replica_thread(started.replica):
            call_command(
                "replay_traffic", "sorter", "--user", "owner", "--url", live_server.url,
                "--rate", "0", "--concurrency", "4", "--max-requests", "2000",
                stdout=out, stderr=io.StringIO(),
            )  # fmt: skip
    text = out.getvalue()
    assert f"until canary {started.pk} decides (at most 2000)" in text
    started.refresh_from_db()
    assert started.state == CanaryState.ROLLED_BACK, (started.state, started.reason)
    sent = int(text.split(" answered")[0].rsplit("/", 1)[1])
    assert sent < 2000  # it stopped once the canary had decided
    assert f"canary {started.pk} rolled back" in text

"""Logging never breaks training, Redis edition: TRL's GRPOTrainer with ``CrucibleCallback`` streams
into an outside run while the platform's Redis (its channel layer, cache and broker; one of
the test's own, never the shared one) is killed and started again mid-run. Training goes on,
and afterwards every step is on the run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from crucible_client import Crucible, Spool
from crucible_client.tracking import CrucibleCallback, CrucibleClient
from transformers import TrainerCallback

from experiments.models import Run
from tests.client.test_tracking import points_of, tiny_model
from tests.client.trl_setup import digit_grpo
from tests.redis_server import RedisServer, redis_server
from tests.web_server import WebServer, serving_for_tests
from training.models import save_model

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
STEPS = 6


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@pytest.fixture
def server_on_own_redis(own_redis, tmp_path) -> Iterator[WebServer]:
    (tmp_path / "server").mkdir()
    with serving_for_tests(own_redis.url, tmp_path / "server") as running:
        yield running


def test_a_trl_grpo_run_logs_through_a_redis_outage_and_every_step_lands(
    own_redis, server_on_own_redis, token, team, tmp_path
):
    url = server_on_own_redis.url
    crucible = Crucible(url, token)
    outside = crucible.runs.init(team.slug, name="through a Redis outage", max_steps=STEPS)
    outage: list[int] = []

    class Outage(TrainerCallback):  # Redis dies after step 2 and is back after step 4
        def on_step_end(self, args, state, control, **kwargs):  # type: ignore[no-untyped-def]
            if state.global_step == 2:
                own_redis.stop()
                outage.append(state.global_step)
            if state.global_step == 4:
                own_redis.start()
                outage.append(state.global_step)

    client = CrucibleClient(url, token, outside["id"], retries=1, backoff_s=0.1)
    model, tokenizer = tiny_model()
    save_model(model, tokenizer, tmp_path / "base")  # TRL loads its reference model by path
    trainer = digit_grpo(
        tmp_path / "base", tokenizer, tmp_path / "trl", steps=STEPS, prompts=32,
        callbacks=[Outage(), CrucibleCallback(client, drain_timeout_s=60)],
    )  # fmt: skip
    result = trainer.train()
    assert result.global_step == STEPS and outage == [2, 4]  # trained to the end, through it
    log = (tmp_path / "server" / "web.log").read_text()
    assert "publish.failed" in log, "the server felt the outage (its live updates failed)"

    run = Run.objects.get(pk=outside["id"])
    found = points_of(run)
    assert [step for step, _, _ in found["reward"]] == list(range(1, STEPS + 1))
    assert [step for step, _, _ in found["kl"]] == list(range(1, STEPS + 1))
    assert Spool().pending(url, run.pk) == 0
    shown = crucible.runs.finish(run.pk)
    assert shown["state"] == "succeeded" and shown["step"] == STEPS

"""Logging never breaks training: with the web server stopped mid-run, the client's logger and
the TrainerCallback keep training, queue on disk, and once the server is back every step is
on the platform, sent by the background thread or by ``crucible sync``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import pytest
from crucible_client import Crucible, RunStream, Spool
from crucible_client.cli import main
from crucible_client.config import save
from crucible_client.tracking import CrucibleCallback, CrucibleClient

from experiments.models import Run
from tests.client.test_tracking import language_model_rows, points_of, tiny_model
from tests.experiments.metrics_setup import make_run
from tests.web_server import free_port, serving_on_test_redis

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


class Restartable:
    """The web server, stopped and started again at the same address."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.stack: ExitStack | None = None

    def start(self) -> None:
        self.stack = ExitStack()
        self.stack.enter_context(serving_on_test_redis(self.workdir, self.port))

    def stop(self) -> None:
        if self.stack is not None:
            self.stack.close()
            self.stack = None


@pytest.fixture(scope="module")
def server_at_one_address(django_db_setup, django_db_blocker, tmp_path_factory):  # type: ignore[no-untyped-def]
    server = Restartable(tmp_path_factory.mktemp("server"))
    yield server
    server.stop()


@pytest.fixture
def restartable(server_at_one_address) -> Restartable:  # type: ignore[no-untyped-def]
    """The module's server, up when the test starts (a test before may have left it down)."""
    if server_at_one_address.stack is None:
        server_at_one_address.start()
    return server_at_one_address


def test_it_leaves_what_the_outage_kept_for_crucible_sync(
    server_at_one_address, token, team, capsys
):
    restartable = server_at_one_address
    run = make_run(team)
    restartable.stop()  # down from the start (first in the module: never started)
    logger = Crucible(restartable.url, token).runs.logger(run.pk)
    for step in range(1, 6):
        logger.log(step, {"reward": step / 10, "kl": 0.01})
    assert not logger.close(timeout_s=1)
    assert Spool().pending(restartable.url, run.pk) == 10
    restartable.start()
    save(restartable.url, token)
    assert main(["sync"]) == 0
    assert "sent 10 point(s), 0 refused, 0 still waiting" in capsys.readouterr().out
    assert [step for step, _, _ in points_of(run)["kl"]] == [1, 2, 3, 4, 5]


def test_it_queues_steps_while_the_server_is_down_and_sends_them_when_it_is_back(
    restartable, token, team
):
    run = make_run(team)
    crucible = Crucible(restartable.url, token)
    logger = crucible.runs.logger(run.pk, flush_interval_s=0)
    for step in range(1, 4):
        logger.log(step, {"reward": step / 10})
    assert logger.drain.wait(30)
    stream, seen = follow(crucible, run.pk, until_step=8)
    wait_for(lambda: seen[-1:] == [3])
    restartable.stop()
    for step in range(4, 9):  # not one of these calls raises or blocks on the network
        logger.log(step, {"reward": step / 10})
    assert logger.pending == 5
    restartable.start()
    assert logger.close(timeout_s=60)
    assert [step for step, _, _ in points_of(run)["reward"]] == list(range(1, 9))
    # The socket was cut with the server, came back with ?since= and missed nothing.
    wait_for(lambda: seen[-1:] == [8])
    assert sorted(set(seen)) == list(range(1, 9)) and stream.reconnects >= 1


def follow(crucible: Crucible, run_id: int, until_step: int) -> tuple[RunStream, list[int]]:
    """The run's socket read in a thread: the reward steps it receives, in order."""
    stream = crucible.runs.stream(run_id, reconnect_for_s=120)
    seen: list[int] = []

    def read() -> None:
        for frame in stream.frames(until_finished=False):
            if frame["type"] in ("history", "points"):
                seen.extend(frame["points"].get("reward", {}).get("step", []))
            if until_step in seen:
                return

    threading.Thread(target=read, daemon=True).start()
    return stream, seen


def wait_for(condition: Callable[[], bool], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_a_trainer_keeps_training_through_an_outage_and_every_step_lands(
    restartable, token, team, tmp_path
):
    from transformers import Trainer, TrainerCallback, TrainingArguments

    crucible = Crucible(restartable.url, token)
    outside = crucible.runs.init(team.slug, name="trainer through an outage", max_steps=6)

    class Outage(TrainerCallback):  # the server goes away after step 2, comes back after 5
        def on_step_end(self, args, state, control, **kwargs):  # type: ignore[no-untyped-def]
            if state.global_step == 2:
                restartable.stop()
            if state.global_step == 5:
                restartable.start()

    client = CrucibleClient(restartable.url, token, outside["id"], retries=1, backoff_s=0.1)
    model, tokenizer = tiny_model()
    rows = language_model_rows(tokenizer, 24, 8)
    args = TrainingArguments(
        output_dir=str(tmp_path / "out"), max_steps=6, per_device_train_batch_size=4,
        logging_steps=1, learning_rate=1e-3, report_to="none", use_cpu=True,
        save_strategy="no", disable_tqdm=True,
    )  # fmt: skip
    callbacks = [Outage(), CrucibleCallback(client, drain_timeout_s=60)]
    Trainer(model=model, args=args, train_dataset=rows, callbacks=callbacks).train()
    run = Run.objects.get(pk=outside["id"])
    assert [step for step, _, _ in points_of(run)["loss"]] == [1, 2, 3, 4, 5, 6]
    assert Spool().pending(restartable.url, run.pk) == 0
    assert crucible.runs.finish(run.pk)["step"] == 6

"""The tracking client and TrainerCallback: against a scripted HTTP server for retries and
refusals, and against the platform itself (a live server) with a real transformers Trainer
and a real TRL GRPOTrainer streaming into a run."""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import torch
from crucible_client.tracking import CrucibleCallback, CrucibleClient, CrucibleError

# --- against a scripted server ----------------------------------------------------------------


class Script:
    """Answers each POST with the next (status, body, headers); records what it received."""

    def __init__(self, answers: list[tuple[int, dict, dict]]) -> None:
        self.answers = answers
        self.received: list[list[dict]] = []
        self.headers: list[dict] = []


@pytest.fixture
def scripted() -> Iterator[tuple[Script, str]]:
    script = Script([])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers["Content-Length"]))
            script.received.append(json.loads(body))
            script.headers.append(dict(self.headers))
            status, answer, headers = (
                script.answers.pop(0) if script.answers else (200, {"seq": 1, "results": []}, {})
            )
            data = json.dumps(answer).encode()
            self.send_response(status)
            for name, value in {**headers, "Content-Type": "application/json"}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield script, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def client_for(url: str, waits: list[float] | None = None, **kwargs) -> CrucibleClient:
    sleep = waits.append if waits is not None else (lambda s: None)
    return CrucibleClient(url, "crc_secret", 7, flush_interval_s=3600, sleep=sleep, **kwargs)


def test_it_sends_a_batch_with_the_token_nan_as_null_and_the_latest_value_of_a_step(scripted):
    script, url = scripted
    client = client_for(url)
    client.log(3, {"reward": 0.5, "kl": math.nan}, tokens=1200, wall_time=99.0)
    client.log(3, {"reward": 0.75}, tokens=1200, wall_time=99.5)
    client.close()
    assert script.headers[0]["Authorization"] == "Bearer crc_secret"
    assert sorted(script.received[0], key=lambda p: p["key"]) == [
        {"key": "kl", "step": 3, "value": None, "wall_time": 99.0, "tokens": 1200},
        {"key": "reward", "step": 3, "value": 0.75, "wall_time": 99.5, "tokens": 1200},
    ]


def test_it_retries_a_failed_batch_with_backoff_and_sends_it_once_it_passes(scripted):
    script, url = scripted
    script.answers = [(503, {}, {}), (429, {}, {"Retry-After": "2"}), (200, {"seq": 9}, {})]
    waits: list[float] = []
    client = client_for(url, waits, backoff_s=0.5)
    client.log(1, {"loss": 1.0})
    client.flush()
    assert waits == [0.5, 2.0] and len(script.received) == 3
    assert script.received[0] == script.received[2] and client.seq == 9 and not client.buffer


def test_it_keeps_the_points_when_the_server_stays_down(scripted):
    script, url = scripted
    script.answers = [(502, {}, {})] * 3
    client = client_for(url, [], retries=2)
    client.log(1, {"loss": 1.0})
    with pytest.raises(CrucibleError, match="502"):
        client.flush()
    assert len(client.buffer) == 1, "kept for the next flush"
    client.flush()
    assert not client.buffer


def test_it_raises_the_servers_reasons_on_a_4xx_without_retrying(scripted):
    script, url = scripted
    refusal = {"errors": [{"field": None, "code": "run_finished", "message": "Run 7 is failed."}]}
    script.answers = [(409, refusal, {})]
    client = client_for(url, [])
    client.log(1, {"loss": 1.0})
    with pytest.raises(CrucibleError, match="Run 7 is failed") as raised:
        client.flush()
    assert raised.value.status == 409 and raised.value.errors[0]["code"] == "run_finished"
    assert len(script.received) == 1 and not client.buffer


def test_it_raises_on_refused_points_naming_them(scripted):
    script, url = scripted
    error = {"field": "key", "code": "invalid", "message": "A metric key is ..."}
    results = [{"index": 0, "status": "refused", "errors": [error]}]
    script.answers = [(207, {"seq": 3, "results": results}, {})]
    client = client_for(url)
    client.log(2, {"bad,key": 1.0})
    with pytest.raises(CrucibleError, match="'bad,key' at step 2: A metric key"):
        client.flush()


def test_it_sends_in_batches_within_the_endpoints_limits(scripted):
    script, url = scripted
    client = client_for(url, batch_size=1000)
    for step in range(3):
        client.log(step, {f"m{i}": float(i) for i in range(500)})
    client.close()
    assert [len(batch) for batch in script.received] == [1000, 500]


def test_it_refuses_a_value_that_is_not_a_number_at_once(scripted):
    _, url = scripted
    with pytest.raises(TypeError, match="'note'"):
        client_for(url).log(1, {"note": "hello"})


# --- against the platform -----------------------------------------------------------------------


@pytest.fixture
def tracked_run(transactional_db, live_server, owner, team):  # type: ignore[no-untyped-def]
    from crucible.accounts import services
    from tests.experiments.metrics_setup import make_run

    run = make_run(team)
    secret = services.create_token(owner, "trainer", team=team).secret
    # Sends only when a test flushes: a slow answer must not make log() flush on its own.
    return run, CrucibleClient(live_server.url, secret, run.pk, flush_interval_s=3600)


def points_of(run) -> dict[str, list[tuple[int, float | None, int | None]]]:
    from experiments.models import MetricPoint

    found: dict[str, list] = {}
    for key, step, value, tokens in (
        MetricPoint.objects.filter(run=run)
        .order_by("key", "step")
        .values_list("key", "step", "value", "tokens")
    ):
        found.setdefault(key, []).append((step, value, tokens))
    return found


def tiny_model():  # type: ignore[no-untyped-def]
    from training import digits
    from training.config import ModelConfig
    from training.models import load_model

    torch.manual_seed(0)
    return load_model(ModelConfig(), digits.corpus(n=200, seed=0), 0)


def language_model_rows(tokenizer, count: int, length: int) -> list[dict]:  # type: ignore[no-untyped-def]
    """``count`` random sequences of ``length`` tokens that a Trainer trains a causal LM on."""
    generator = torch.Generator().manual_seed(0)
    return [
        {"input_ids": ids, "labels": ids, "attention_mask": torch.ones_like(ids)}
        for ids in torch.randint(3, tokenizer.vocab_size, (count, length), generator=generator)
    ]


def test_it_streams_a_run_from_a_script_and_stops_at_a_finished_run(tracked_run):
    from experiments.models import Run, RunState

    run, client = tracked_run
    started = time.time()
    with client:
        for step in range(1, 4):
            client.log(step, {"reward": step / 10, "kl": 0.01 * step}, tokens=100 * step)
    assert points_of(run)["reward"] == [(1, 0.1, 100), (2, 0.2, 200), (3, 0.3, 300)]
    Run.objects.filter(pk=run.pk).update(state=RunState.SUCCEEDED)
    client.log(4, {"reward": 0.4})
    with pytest.raises(CrucibleError, match="succeeded") as raised:
        client.flush()
    assert raised.value.status == 409 and time.time() - started < 60


@pytest.mark.slow
def test_it_streams_a_transformers_trainers_logs_into_a_run(tracked_run, tmp_path: Path):
    from transformers import Trainer, TrainingArguments

    run, client = tracked_run
    model, tokenizer = tiny_model()
    rows = language_model_rows(tokenizer, 32, 16)
    args = TrainingArguments(
        output_dir=str(tmp_path),
        max_steps=4,
        per_device_train_batch_size=4,
        logging_steps=1,
        learning_rate=1e-3,
        include_num_input_tokens_seen=True,
        report_to="none",
        use_cpu=True,
        save_strategy="no",
        disable_tqdm=True,
    )
    trainer = Trainer(
        model=model, args=args, train_dataset=rows, callbacks=[CrucibleCallback(client)]
    )
    trainer.train()
    found = points_of(run)
    assert [step for step, _, _ in found["loss"]] == [1, 2, 3, 4]
    assert all(value is not None and value > 0 for _, value, _ in found["loss"])
    assert [tokens for _, _, tokens in found["loss"]] == [64, 128, 192, 256]
    assert {"grad_norm", "learning_rate", "train_runtime"} <= set(found)


@pytest.mark.slow
def test_it_streams_a_trl_grpo_run_into_a_run(tracked_run, tmp_path: Path):
    from tests.client.trl_setup import digit_grpo  # TRL loads only for the tests that train
    from training.models import save_model

    run, client = tracked_run
    model, tokenizer = tiny_model()
    save_model(model, tokenizer, tmp_path / "base")  # TRL loads its reference model by path
    trainer = digit_grpo(
        tmp_path / "base", tokenizer, tmp_path / "trl", steps=2, prompts=16,
        callbacks=[CrucibleCallback(client)],
    )  # fmt: skip
    trainer.train()
    found = points_of(run)
    assert {"reward", "kl", "reward_std", "completions/mean_length"} <= set(found), sorted(found)
    assert [step for step, _, _ in found["reward"]] == [1, 2]
    assert all(tokens is not None and tokens > 0 for _, _, tokens in found["reward"])

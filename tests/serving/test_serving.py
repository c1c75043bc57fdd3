"""What a generate request's answer is judged against, and which verdicts a canary weighs:
only a pool task's reference, looked up by the platform with the task's own prompt and the
verifier the served model was trained with; an answer or verifier a caller names is judged
for them to read, and never decides a canary."""

from __future__ import annotations

import time

import pytest

from serving.models import CanaryState, JudgedAgainst, ServedRequest
from serving.services import serving
from tests.experiments.runs_setup import digit_verifier
from tests.serving.serving_setup import Served, replica_thread
from tests.serving.test_deployments import (
    canary,
    deploy,
    fields,
    generate,
    logged,
    production_replica,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def served(owner, team, tmp_path) -> Served:  # type: ignore[no-untyped-def]
    return Served(owner, tmp_path)


def test_it_refuses_a_prompt_other_than_the_named_tasks_and_sends_the_tasks_own(  # type: ignore[no-untyped-def]
    api, client_for, teammate, served
) -> None:
    served.production(served.version(sft_steps=1, step=40))
    deploy(api, served)
    viewer = client_for(teammate)
    (prompt, task), (other, _) = served.held_out(2)
    # Another prompt's answer judged against this task's reference fails at the caller's will.
    refused = generate(viewer, "sorter", prompt=other, family="digits", task=task)
    assert refused.status_code == 400
    assert "differs from task" in fields(refused)["prompt"]
    assert not ServedRequest.objects.exists()
    # Without a prompt the task's own is sent (here: logged as refused, no replica is up yet).
    waiting = generate(viewer, "sorter", family="digits", task=task)
    assert waiting.status_code == 503, waiting.json()
    assert ServedRequest.objects.get().prompt == prompt


def test_it_judges_only_a_pool_task_with_the_trained_verifier_for_a_canary(  # type: ignore[no-untyped-def]
    api, owner, team, served
) -> None:
    served.production(served.version(sft_steps=1, step=40))
    deployment = deploy(api, served)
    stricter = digit_verifier(owner, team, slug="stricter-sort")
    (prompt, task), *_ = served.held_out(1)

    def judged(**body):  # type: ignore[no-untyped-def]
        return serving.target(deployment, serving.parse(deployment, {"prompt": prompt, **body}))

    pool = judged(family="digits", task=task)
    assert (pool.against, pool.verifier_version) == (JudgedAgainst.POOL, served.verifier.pk)
    assert pool.expected == served.pool.tasks.get(content_hash=task).expected
    assert judged(family="digits", expected={"answer": "x"}).against == JudgedAgainst.CALLER
    assert judged(family="digits", task=task, expected={"answer": "x"}).against == "caller"
    chosen = judged(family="digits", task=task, verifier_version=stricter.pk)
    assert chosen.against == JudgedAgainst.CALLER  # a verifier the caller picked
    assert judged().against == JudgedAgainst.NOTHING


@pytest.mark.slow
def test_it_never_lets_a_viewers_own_answers_decide_a_canary(  # type: ignore[no-untyped-def]
    api, client_for, teammate, served
) -> None:
    served.production(served.version(sft_steps=60, step=40))
    same = served.version(sft_steps=60, step=80, promoted=False)
    deployment = deploy(api, served)
    viewer = client_for(teammate)
    tasks = served.held_out(60)
    with replica_thread(production_replica(deployment)):
        started = canary(api, "sorter", same.pk, steps=[50], guardrails={"min_samples": 10})
        with replica_thread(started.replica):
            # A viewer who worked out which keys the candidate answers gives those requests
            # wrong answers, and the others their real tasks.
            for i in range(80):
                key, (prompt, task) = f"u{i}", tasks[i % len(tasks)]
                body = {"prompt": prompt, "family": "digits", "key": key}
                if serving.bucket(key) < started.share:
                    body["expected"] = {"answer": "x"}
                else:
                    body["task"] = task
                answer = generate(viewer, "sorter", **body)
                assert answer.status_code == 200, answer.json()
                started.refresh_from_db()
                assert started.state == CanaryState.RUNNING, started.reason
            time.sleep(1.5)  # the last verdicts, and the analysis they wake
            started.refresh_from_db()
            assert started.state == CanaryState.RUNNING, started.reason
            forged = ServedRequest.objects.filter(side="candidate", shadow=False)
            assert forged.count() >= 10 and not forged.filter(passed=True).exists()
            assert set(forged.values_list("judged_against", flat=True)) == {"caller"}
            sides = started.analysis["sides"]
            assert sides["candidate"]["verified"] == 0 and sides["production"]["verified"] >= 10

            # The candidate's answers to pool tasks are what judge it.
            keys = [k for k in (f"c{i}" for i in range(200)) if serving.bucket(k) < 50][:3]
            for key, (_, task) in zip(keys, tasks, strict=False):
                answer = generate(viewer, "sorter", family="digits", task=task, key=key)
                assert answer.json()["side"] == "candidate"
                assert logged(answer.json()["id"]).judged_against == JudgedAgainst.POOL

"""A shadow canary on real traffic: answers to prompts that carry no reference are judged on
both sides by the trained verifier's reference-free layers and shown by source; only
held-out tasks judged against their pool references count in the decision."""

from __future__ import annotations

import time

import pytest

from serving import canary_analysis
from serving.canary_analysis import Guardrails, Side
from serving.models import JudgedAgainst, ServedRequest
from serving.services import canaries, replicas
from tasks_app.models import VerifierVersion
from tests.serving.serving_setup import Served, replica_thread
from tests.serving.test_deployments import canary, deploy, generate, production_replica
from tests.serving.test_openai import (
    client,
    server_url,  # noqa: F401 - the live server fixture
)

DIGITS = {"kind": "regex", "name": "digits", "params": {"pattern": "[0-9 ]+", "fullmatch": True}}


def test_only_pool_verdicts_decide_and_reference_free_ones_are_shown_beside() -> None:
    rails = Guardrails(min_samples=5)
    production = Side(requests=50, verified=40, passed=36, latencies_ms=(10.0,) * 40,
                      output_tokens=(4,) * 40)  # fmt: skip
    candidate = Side(requests=50, verified=40, passed=37, latencies_ms=(10.0,) * 40,
                     output_tokens=(4,) * 40)  # fmt: skip
    # Real traffic where the candidate does far worse: shown, and the decision is unchanged.
    bad = Side(**{**candidate.__dict__, "free_judged": 300, "free_passed": 3})
    assert canary_analysis.analyse(production, bad, rails) == canary_analysis.analyse(
        production, candidate, rails
    )
    pool, free = canary_analysis.verdict_sources(production, bad)
    assert (pool["source"], pool["counted"]) == ("pool", True)
    assert (free["source"], free["counted"]) == ("reference_free", False)
    assert free["candidate"] == {"judged": 300, "passed": 3, "pass_rate": 0.01}
    assert free["production"]["pass_rate"] is None and "never decides" in free["why"]
    with pytest.raises(ValueError):
        Side(free_judged=1, free_passed=2)
    spec = {"extract": "full_text", "layers": [DIGITS, {"kind": "string_match", "name": "a"}]}
    assert replicas.reference_free(spec) == {**spec, "layers": [DIGITS]}
    assert replicas.reference_free({"layers": [{"kind": "string_match"}]}) is None


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_shadow_canary_judges_real_traffic_without_references_on_both_sides(  # type: ignore[no-untyped-def]
    api,
    owner,
    team,
    tmp_path,
    server_url,  # noqa: F811
) -> None:
    served = Served(owner, tmp_path)
    # The trained verifier checks the answer's form (reference-free) before comparing it.
    spec = served.verifier.spec
    VerifierVersion.objects.filter(pk=served.verifier.pk).update(
        spec={**spec, "layers": [DIGITS, *spec["layers"]]}
    )
    served.production(served.version(sft_steps=60, step=40))
    candidate = served.version(sft_steps=20, step=80, promoted=False)
    deployment = deploy(api, served)
    chat = client(server_url, owner, team)
    (prompt, task), *_ = served.held_out(1)
    with replica_thread(production_replica(deployment)):
        started = canary(api, "sorter", candidate.pk, mode="shadow", steps=[100])
        with replica_thread(started.replica):
            for i in range(3):  # real traffic: no reference
                chat.chat.completions.create(
                    model="sorter", messages=[{"role": "user", "content": f"sort {i}31="}],
                    max_tokens=6, temperature=0, user=f"u{i}",
                )  # fmt: skip
            replayed = generate(api, "sorter", prompt=prompt, family="digits", task=task)
            assert replayed.status_code == 200, replayed.json()
            rows = ServedRequest.objects.filter(canary=started)
            deadline = time.monotonic() + 30
            while rows.exclude(passed=None).count() < 8:
                assert time.monotonic() < deadline, list(rows.values("side", "judged_against"))
                time.sleep(0.1)
    free = rows.filter(judged_against=JudgedAgainst.REFERENCE_FREE)
    assert free.filter(side="production").count() == 3
    assert free.filter(side="candidate", shadow=True).count() == 3
    for row in free:  # judged by the form check only: the comparison needs a reference
        names = [layer["name"] for layer in row.verdict["layers"]]
        assert "digits" in names and "answer" not in names, names
        assert row.verdict["reference_free"] is True
    assert rows.filter(judged_against=JudgedAgainst.POOL).count() == 2

    canaries.observe(started.pk)
    started.refresh_from_db()
    analysis = started.analysis
    sources = {s["source"]: s for s in analysis["sources"]}
    assert sources["pool"]["counted"] and not sources["reference_free"]["counted"]
    assert sources["reference_free"]["production"]["judged"] == 3
    assert sources["reference_free"]["candidate"]["judged"] == 3
    assert analysis["sides"]["candidate"]["verified"] == 1  # only the pool's verdict counts
    assert analysis["sides"]["candidate"]["reference_free_judged"] == 3
    shown = api.get(f"/api/v1/canaries/{started.pk}/").json()["analysis"]
    assert [s["source"] for s in shown["sources"]] == ["pool", "reference_free"]

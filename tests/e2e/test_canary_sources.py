"""The canary page in real Chromium shows where its verdicts came from: held-out tasks judged
against their pool references (counted in the decision) and real traffic judged without
references in shadow mode (shown, never counted), with a badge on each request."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from serving.models import JudgedAgainst, ServedRequest
from serving.services import canaries, deployments
from tests.e2e.conftest import screenshot
from tests.serving.serving_setup import Served

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_canary_page_shows_counted_and_reference_free_verdicts_apart(  # type: ignore[no-untyped-def]
    signed_in_page, e2e_user, tmp_path
) -> None:
    page = signed_in_page
    served = Served(e2e_user, tmp_path)
    served.production(served.version(sft_steps=1, step=40))
    team = e2e_user.memberships.get().team
    deployment = deployments.create(
        e2e_user, team, name="Sorter", slug="sorter", registered_model=served.model
    )
    candidate = served.version(sft_steps=1, step=80, promoted=False)
    canary = canaries.start(e2e_user, deployment, candidate=candidate.pk, mode="shadow")
    rows = []
    for side, pool_passed, free_passed in (("production", 7, 18), ("candidate", 8, 6)):
        for i in range(10):  # replayed held-out tasks, judged against their references
            rows.append(ServedRequest(
                deployment=deployment, canary=canary, step=0, side=side, prompt="sort 21=",
                completion="1 2", status="ok", latency_ms=90.0, output_tokens=3,
                family="digits", task="t", passed=i < pool_passed,
                judged_against=JudgedAgainst.POOL, shadow=side == "candidate",
            ))  # fmt: skip
        for i in range(20):  # real traffic: reference-free layers only
            rows.append(ServedRequest(
                deployment=deployment, canary=canary, step=0, side=side, prompt=f"sort {i}9=",
                completion="9 x", status="ok", latency_ms=80.0, output_tokens=3,
                passed=i < free_passed, judged_against=JudgedAgainst.REFERENCE_FREE,
                shadow=side == "candidate",
            ))  # fmt: skip
    ServedRequest.objects.bulk_create(rows)
    canaries.observe(canary.pk)

    page.goto(f"/canaries/{canary.pk}")
    sources = page.get_by_role("table", name="Verdict sources")
    held_out = sources.get_by_role("row", name="Held-out tasks")
    real = sources.get_by_role("row", name="Real traffic")
    expect(held_out).to_contain_text("reference · counted")
    expect(held_out).to_contain_text("7/10")
    expect(held_out).to_contain_text("8/10")
    expect(held_out.get_by_text("counted", exact=True)).to_be_visible()
    expect(real).to_contain_text("reference-free · shown only")
    expect(real).to_contain_text("18/20")
    expect(real).to_contain_text("6/20")
    expect(real.get_by_text("not counted", exact=True)).to_be_visible()
    expect(real).to_contain_text("a caller picks real traffic's prompts")
    # The step's decision reads the 10 pool verdicts a side, not the 20 reference-free ones.
    expect(page.get_by_role("region", name="Candidate")).to_contain_text("Verified10")
    requests = page.get_by_role("table", name="Canary requests")
    expect(requests.get_by_text("reference-free · shown only").first).to_be_visible()
    expect(requests.get_by_text("reference · counted").first).to_be_visible()
    screenshot(page, "canary-verdict-sources")

"""Upgrading a database from before pool versions froze their environment: each existing
version gets its family's environment as it stood, and keeps its content hash."""

from __future__ import annotations

import pytest

from tasks_app.models import PoolVersion
from tests.migration_setup import migrated_back_to

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]

BEFORE = [("tasks_app", "0004_family_environment")]
ENVIRONMENT = {
    "kind": "guess-number",
    "limits": {"max_turns": 6, "max_tokens_per_turn": 4, "max_total_tokens": 96},
}


@pytest.fixture
def executor():  # type: ignore[no-untyped-def]
    with migrated_back_to(BEFORE) as executor:
        yield executor


def test_existing_versions_freeze_their_familys_environment(executor):
    apps = executor.loader.project_state(BEFORE).apps
    team = apps.get_model("accounts", "Team").objects.create(name="Team", slug="team")
    families = apps.get_model("tasks_app", "TaskFamily")
    versions = apps.get_model("tasks_app", "PoolVersion")
    guess = families.objects.create(
        team=team, name="Guess", slug="guess", kind="guess-number", environment=ENVIRONMENT
    )
    digits = families.objects.create(team=team, name="Digits", slug="digits", kind="digit-sort")

    def version(family, number: int, content_hash: str):  # type: ignore[no-untyped-def]
        return versions.objects.create(
            family=family, number=number, content_hash=content_hash, source="generator",
            held_out_fraction=0.1, task_count=1, train_count=1, held_out_count=0,
        )  # fmt: skip

    old = {
        version(guess, 1, "a" * 64).pk: ENVIRONMENT,
        version(guess, 2, "b" * 64).pk: ENVIRONMENT,
        version(digits, 1, "c" * 64).pk: None,
    }

    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    upgraded = {v.pk: v for v in PoolVersion.objects.all()}
    assert {pk: v.environment for pk, v in upgraded.items()} == old
    assert sorted(v.content_hash[0] for v in upgraded.values()) == ["a", "b", "c"]

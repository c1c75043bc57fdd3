import csv
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from crucible.accounts import services as accounts
from tasks_app.models import PoolVersion
from tasks_app.services import pools

pytestmark = pytest.mark.django_db


@pytest.fixture
def family(owner, team):
    return pools.create_family(owner, team, name="Sums", slug="sums", kind="arithmetic")


def write_csv(path, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_it_imports_a_csv_with_a_mapping(tmp_path, family):
    path = tmp_path / "sums.csv"
    write_csv(
        path,
        [
            {"question": f"What is {i} + {i * 7}?", "result": str(8 * i), "level": "easy"}
            for i in range(1, 40)
        ],
    )
    out = StringIO()
    call_command(
        "import_tasks",
        "reasoning",
        "sums",
        str(path),
        "--map",
        "prompt=question",
        "--map",
        "answer=result",
        "--map",
        "difficulty=level",
        "--no-near-duplicates",
        stdout=out,
    )
    assert "created sums v1: 39 tasks" in out.getvalue()
    assert PoolVersion.objects.get().source == "upload"


def test_it_lists_bad_rows_and_saves_nothing(tmp_path, family):
    path = tmp_path / "bad.csv"
    write_csv(
        path, [{"question": "What is 1 + 1?", "result": "2"}, {"question": "", "result": "3"}]
    )
    with pytest.raises(CommandError, match=r"row 2, question"):
        call_command(
            "import_tasks",
            "reasoning",
            "sums",
            str(path),
            "--map",
            "prompt=question",
            "--map",
            "answer=result",
        )
    assert PoolVersion.objects.count() == 0


def test_it_names_an_unknown_family_and_a_bad_mapping(tmp_path, family, owner):
    accounts.create_team(owner, "Other", "other")
    with pytest.raises(CommandError, match="no family 'sums' in team 'other'"):
        call_command("import_tasks", "other", "sums", str(tmp_path / "x.csv"))
    (tmp_path / "x.csv").write_text("a\n1\n")
    with pytest.raises(CommandError, match="--map expects field=column"):
        call_command(
            "import_tasks", "reasoning", "sums", str(tmp_path / "x.csv"), "--map", "prompt"
        )

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
        "--label",
        "easy=2",
        "--no-near-duplicates",
        stdout=out,
    )
    assert "created sums v1: 39 tasks" in out.getvalue()
    version = PoolVersion.objects.get()
    assert version.source == "upload"
    assert set(version.tasks.values_list("difficulty", flat=True)) == {2}


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


def test_it_refuses_a_difficulty_label_without_a_level(tmp_path, family):
    path = tmp_path / "sums.csv"
    write_csv(path, [{"prompt": "What is 1 + 1?", "answer": "2", "difficulty": "hard"}])
    with pytest.raises(CommandError, match=r"row 1, difficulty: label 'hard' has no level"):
        call_command("import_tasks", "reasoning", "sums", str(path))
    with pytest.raises(CommandError, match="--label expects label=level"):
        call_command("import_tasks", "reasoning", "sums", str(path), "--label", "hard")
    assert PoolVersion.objects.count() == 0


def test_it_appends_a_second_file_to_the_latest_version_unless_told_to_replace(tmp_path, family):
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    write_csv(first, [{"prompt": f"What is {i} + 1?", "answer": str(i + 1)} for i in range(5)])
    write_csv(second, [{"prompt": f"What is {i} + 1?", "answer": str(i + 1)} for i in range(3, 8)])
    call_command("import_tasks", "reasoning", "sums", str(first), stdout=StringIO())
    out = StringIO()
    call_command("import_tasks", "reasoning", "sums", str(second), stdout=out)
    assert "append: +3 -0 =5" in out.getvalue() and "created sums v2: 8 tasks" in out.getvalue()
    out = StringIO()
    call_command("import_tasks", "reasoning", "sums", str(second), "--mode", "replace", stdout=out)
    assert "replace: +0 -3 =5" in out.getvalue() and "created sums v3: 5 tasks" in out.getvalue()

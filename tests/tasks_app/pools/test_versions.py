from tasks_app.families import arithmetic
from tasks_app.pools.versions import diff, plan_tasks, split_for, summarise, version_hash


def test_it_hashes_a_version_independently_of_order() -> None:
    assert version_hash(["b", "a"]) == version_hash(["a", "b"]) != version_hash(["a"])


def test_it_splits_by_hash_deterministically_near_the_fraction() -> None:
    tasks = arithmetic.generate(2000, difficulty=3, seed=1)
    planned = plan_tasks(tasks, held_out_fraction=0.2)
    again = plan_tasks(list(reversed(tasks)), held_out_fraction=0.2)
    assert {p.content_hash: p.split for p in planned} == {p.content_hash: p.split for p in again}
    share = sum(p.split == "held_out" for p in planned) / len(planned)
    assert 0.17 < share < 0.23
    assert split_for("00000000ff", 0.1) == "held_out" and split_for("ffffffff00", 0.1) == "train"


def test_it_drops_repeated_content_when_planning() -> None:
    task = arithmetic.generate(1, difficulty=1, seed=1)[0]
    assert len(plan_tasks([task, task])) == 1


def test_it_diffs_versions_with_counts_and_stable_examples() -> None:
    result = diff(["a", "b", "c"], ["b", "c", "d", "e"], examples=1)
    assert (result.added, result.removed, result.unchanged) == (2, 1, 2)
    assert result.added_examples == ["d"] and result.removed_examples == ["a"]


def test_it_summarises_counts_and_the_difficulty_histogram() -> None:
    planned = plan_tasks(arithmetic.generate(50, difficulty=2, seed=3))
    summary = summarise((p.content_hash, p.task.difficulty) for p in planned)
    assert summary.task_count == summary.train_count + summary.held_out_count == 50
    assert summary.difficulty_histogram == {2: 50}
    assert summary.to_dict()["difficulty_histogram"] == {"2": 50}


def test_it_makes_regraded_tasks_a_different_version_with_the_same_splits():
    graded_once = summarise([("a" * 64, 1), ("b" * 64, 2)])
    graded_again = summarise([("a" * 64, 3), ("b" * 64, 2)])
    assert graded_once.content_hash != graded_again.content_hash
    assert graded_once.held_out_count == graded_again.held_out_count

"""Import 100,000 JSONL task rows end to end, against pandas + datasketch on the same file.

Ours: stream, map, validate (math-word kind), exact + near-duplicate removal, hash and split,
then write the version and its tasks through the platform's pool service (Django ORM,
the embedded SQLite default) in one transaction. Anchor: pandas ``read_json(lines=True)``
+ ``drop_duplicates``, then datasketch ``MinHash`` + ``MinHashLSH`` (128 permutations,
threshold 0.8, word 3-gram shingles), each row queried before it is inserted.

Prints one JSON line; ``ratio`` = anchor seconds / our seconds. Extra keys: near-duplicate
agreement (per row that survives exact removal: removed as a duplicate or not, on each side),
our peak traced memory over the file size.

    python bench/import_dedup.py [--rows 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tasks_app.pools.pipeline import ImportPlan, ImportSpec, plan_import  # noqa: E402

SPEC = ImportSpec(kind="math-word", mapping={"prompt": "question"})
GSM8K = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "gsm8k" / "test.jsonl"


def make_rows(path: Path, n: int, seed: int = 7) -> None:
    """Word-problem-like rows: ~8% exact copies, ~8% near copies (one word changed, added or
    dropped), the rest fresh questions drawn from a GSM8K-sized vocabulary."""
    rng = random.Random(seed)
    vocab = _vocabulary()
    fresh: list[str] = []
    with open(path, "w") as out:
        for _ in range(n):
            roll = rng.random()
            if fresh and roll < 0.08:
                question = rng.choice(fresh)
            elif fresh and roll < 0.16:
                question = _edit(rng.choice(fresh), vocab, rng)
            else:
                question = " ".join(rng.choice(vocab) for _ in range(rng.randint(30, 70))) + "?"
                fresh.append(question)
            answer = (
                f"Working: {rng.randint(1, 99)} + {rng.randint(1, 99)}.\n#### {rng.randint(1, 999)}"
            )
            out.write(json.dumps({"question": question, "answer": answer}) + "\n")


def _vocabulary() -> list[str]:
    if GSM8K.exists():
        words = {w for line in open(GSM8K) for w in json.loads(line)["question"].split()}
        return sorted(words)
    return [f"word{i}" for i in range(8000)]


def _edit(question: str, vocab: list[str], rng: random.Random) -> str:
    words = question.split(" ")
    roll = rng.random()
    if roll < 0.4:
        words[rng.randrange(len(words))] = rng.choice(vocab)
    elif roll < 0.7:
        words.insert(rng.randrange(len(words)), rng.choice(vocab))
    else:
        del words[rng.randrange(len(words))]
    return " ".join(words)


def django_family(var_dir: Path, slug: str):  # type: ignore[no-untyped-def]
    """A migrated embedded-default database under ``var_dir`` and an empty math-word family."""
    os.environ["CRUCIBLE_VAR_DIR"] = str(var_dir)
    os.environ["DJANGO_SETTINGS_MODULE"] = "crucible.settings.base"
    os.environ.pop("DATABASE_URL", None)
    import django
    from django.core.management import call_command

    django.setup()
    from django.contrib.auth import get_user_model

    from crucible.accounts import services as accounts
    from crucible.accounts.models import Team
    from tasks_app.services import pools

    call_command("migrate", verbosity=0)
    if not Team.objects.filter(slug="bench").exists():
        user = get_user_model().objects.create_user("bench")
        accounts.create_team(user, "Bench", "bench")
    team = Team.objects.get(slug="bench")
    return pools.create_family(None, team, name=slug, slug=slug, kind="math-word")


def write_version(plan: ImportPlan, family) -> int:  # type: ignore[no-untyped-def]
    """The platform's own write path: the version row and all its tasks in one transaction."""
    from tasks_app.services import pools

    version, _ = pools.write_version(
        None,
        family,
        plan.iter_tasks(),
        plan.summary,
        plan.dedup.to_dict(),
        source="upload",
        detail={"bench": True},
    )
    return version.tasks.count()


def ours(path: Path, family) -> tuple[float, ImportPlan]:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    plan = plan_import(path, SPEC)
    written = write_version(plan, family)
    elapsed = time.perf_counter() - start
    assert written == plan.summary.task_count
    return elapsed, plan


def anchor(path: Path) -> tuple[float, set[int], set[int]]:
    """Seconds, rows (1-based) dropped as exact, rows dropped as near duplicates."""
    import pandas as pd
    from datasketch import MinHash, MinHashLSH

    start = time.perf_counter()
    frame = pd.read_json(path, lines=True)
    unique = frame.drop_duplicates(subset=["question"])
    lsh = MinHashLSH(threshold=0.8, num_perm=128)
    near: set[int] = set()
    for index, question in zip(unique.index, unique["question"], strict=True):
        words = question.lower().split()
        shingles = {" ".join(words[i : i + 3]) for i in range(max(len(words) - 2, 1))}
        minhash = MinHash(num_perm=128)
        minhash.update_batch([s.encode() for s in shingles])
        if lsh.query(minhash):
            near.add(int(index) + 1)
        else:
            lsh.insert(str(index), minhash)
    elapsed = time.perf_counter() - start
    exact = set(range(1, len(frame) + 1)) - {int(i) + 1 for i in unique.index}
    return elapsed, exact, near


def peak_memory(path: Path, family) -> int:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    ours(path, family)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.jsonl"
        make_rows(path, args.rows)
        our_s, plan = ours(path, django_family(Path(tmp), "timed"))
        anchor_s, anchor_exact, anchor_near = anchor(path)
        peak = peak_memory(path, django_family(Path(tmp), "traced"))
        size = path.stat().st_size
    removed = {r.row for r in plan.dedup.removed}
    survivors = [row for row in range(1, args.rows + 1) if row not in anchor_exact]
    agree = sum((row in anchor_near) == (row in removed) for row in survivors)
    print(
        json.dumps(
            {
                "bench": "import_dedup",
                "ours": round(our_s, 3),
                "anchor": round(anchor_s, 3),
                "unit": "s",
                "ratio": round(anchor_s / our_s, 2),
                "rows": args.rows,
                "file_mb": round(size / 2**20, 1),
                "near_dup_agreement": round(agree / len(survivors), 4),
                "near_removed_ours": plan.dedup.near_count,
                "near_removed_anchor": len(anchor_near),
                "exact_removed_ours": plan.dedup.exact_count,
                "exact_removed_anchor": len(anchor_exact),
                "peak_mem_mb": round(peak / 2**20, 1),
                "peak_mem_over_file": round(peak / size, 2),
            }
        )
    )


if __name__ == "__main__":
    main()

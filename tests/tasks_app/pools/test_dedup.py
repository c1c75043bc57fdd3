import random

import numpy as np
import pytest

from tasks_app.pools.dedup import Deduper, MinHasher, dedup, exact_key, lsh_params, normalise


def _text(rng: random.Random, n: int = 50) -> str:
    return " ".join(f"tok{rng.randrange(5000)}" for _ in range(n))


def test_it_normalises_case_and_whitespace_for_exact_matches() -> None:
    assert normalise("  Hello\tWORLD \n") == "hello world"
    assert exact_key("A  b") == exact_key("a b") != exact_key("a c")


def test_it_counts_exact_and_near_duplicates_and_lists_them() -> None:
    rng = random.Random(0)
    base = [_text(rng) for _ in range(200)]
    texts = base + [base[5].upper(), base[7] + " one more", "  " + base[9]]
    report = dedup(texts)
    assert (report.exact_count, report.near_count) == (2, 1)
    near = next(r for r in report.removed if r.kind == "near")
    assert (near.row, near.duplicate_of) == (201, 7) and near.similarity >= 0.8
    assert len(report.kept) == 200 and report.to_dict()["removed"][0]["kind"] == "exact"


def test_it_keeps_texts_below_the_threshold() -> None:
    rng = random.Random(1)
    a = _text(rng, 30)
    words = a.split()
    half = " ".join(words[:15] + [f"new{i}" for i in range(15)])
    assert dedup([a, half]).near_count == 0


def test_it_estimates_jaccard_like_exact_minhash() -> None:
    rng = random.Random(2)
    a = _text(rng, 200).split()
    b = a[:180] + [f"x{i}" for i in range(20)]
    sig = MinHasher().signatures([normalise(" ".join(a)), normalise(" ".join(b))])
    shingles = [{tuple(w[i : i + 3]) for i in range(len(w) - 2)} for w in (a, b)]
    true = len(shingles[0] & shingles[1]) / len(shingles[0] | shingles[1])
    assert abs(float(np.mean(sig[0] == sig[1])) - true) < 0.12


def test_it_handles_short_and_empty_texts() -> None:
    report = dedup(["", "one", "two words", "one", ""])
    assert report.exact_count == 2 and report.kept == [0, 1, 2]


def test_it_streams_in_chunks_with_the_same_decisions() -> None:
    rng = random.Random(3)
    base = [_text(rng) for _ in range(300)]
    texts = base + [t + " tail" for t in base[:50]]
    whole = dedup(texts)
    chunked = Deduper(chunk_rows=64)
    chunked.add_many(texts)
    assert chunked.finish().removed == whole.removed and whole.near_count == 50


def test_it_picks_the_same_lsh_bands_as_datasketch() -> None:
    lsh = pytest.importorskip("datasketch").MinHashLSH(threshold=0.8, num_perm=128)
    assert lsh_params(0.8, 128) == (lsh.b, lsh.r)


def test_it_matches_new_rows_against_pinned_rows_and_never_removes_those() -> None:
    rng = random.Random(3)
    old = [_text(rng) for _ in range(50)]
    deduper = Deduper()
    for i, text in enumerate(old + [old[0]]):  # an earlier version may hold near-twins itself
        deduper.add(-(i + 1), text, pinned=True)
    new = [_text(rng) for _ in range(20)] + [old[3].upper(), old[4] + " again", old[5]]
    deduper.add_many(new, start=1)
    report = deduper.finish()
    assert report.total == 23 and report.kept == list(range(1, 21))
    assert [(r.row, r.duplicate_of, r.kind) for r in report.removed] == [
        (21, -4, "exact"),
        (22, -5, "near"),
        (23, -6, "exact"),
    ]

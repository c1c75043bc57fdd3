"""Exact and near-duplicate removal for task prompts.

Exact: a hash of the normalised text (case-folded, whitespace collapsed).
Near: MinHash over word 3-gram shingles (Broder 1997, "On the resemblance and containment of
documents") with LSH banding (Leskovec, Rajaraman, Ullman, *Mining of Massive Datasets*,
ch. 3.4), computed for many rows at once with numpy. Candidates that share a band are then
checked against the similarity threshold with b-bit signatures (Li & König 2010, "b-Bit
Minwise Hashing"), so a reported near-duplicate always carries its estimated Jaccard
similarity. Rows are decided in input order: the first of a group is kept.

Rows stream in through ``Deduper.add``; texts are dropped after each chunk is hashed, so
memory is about ``bands * 8 + num_perm`` bytes a row, not the text. Rows added as ``pinned``
(the tasks of the version an import adds to) are never removed, only matched against.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, Literal

import numpy as np

_U64 = np.uint64
_MIX1, _MIX2 = _U64(0xBF58476D1CE4E5B9), _U64(0x94D049BB133111EB)
_GOLDEN = _U64(0x9E3779B97F4A7C15)
_BLOCK = 32768


def normalise(text: str) -> str:
    """Case-folded text with runs of whitespace collapsed to one space."""
    return " ".join(text.casefold().split())


def exact_key(text: str) -> bytes:
    """128-bit digest of the normalised text: equal for texts that differ only in case/space."""
    return _digest(normalise(text))


def _digest(normalised: str) -> bytes:
    return hashlib.blake2b(normalised.encode(), digest_size=16).digest()


@dataclass(frozen=True)
class Removal:
    row: int
    duplicate_of: int
    """The row kept in its place; a pinned row when negative (an earlier version's task)."""
    kind: Literal["exact", "near"]
    similarity: float


@dataclass
class DedupReport:
    total: int
    kept: list[int]
    removed: list[Removal]

    @property
    def exact_count(self) -> int:
        return sum(1 for r in self.removed if r.kind == "exact")

    @property
    def near_count(self) -> int:
        return sum(1 for r in self.removed if r.kind == "near")

    def to_dict(self, limit: int = 100) -> dict[str, Any]:
        """Counts plus the first ``limit`` removed rows, for the import response."""
        return {
            "total": self.total,
            "kept": len(self.kept),
            "exact_duplicates": self.exact_count,
            "near_duplicates": self.near_count,
            "removed": [asdict(r) for r in self.removed[:limit]],
        }


def _splitmix(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser (Steele et al. 2014): spreads ids/keys into random-looking bits."""
    x = (x + _GOLDEN) & _U64(0xFFFFFFFFFFFFFFFF)
    x = (x ^ (x >> _U64(30))) * _MIX1
    x = (x ^ (x >> _U64(27))) * _MIX2
    return x ^ (x >> _U64(31))


class _Vocabulary(dict[str, int]):
    """Word -> id in first-seen order; lookups of known words stay in C."""

    def __missing__(self, word: str) -> int:
        self[word] = value = len(self)
        return value


class MinHasher:
    """MinHash signatures of word n-gram shingles, ``num_perm`` hash functions, uint32 values.

    Words get ids from a vocabulary filled in first-seen order, so results are deterministic
    for the same input (Python's own ``hash`` is salted per process). Each of the
    ``num_perm`` functions is ``a * x + b`` modulo 2**32 with odd ``a``, a bijection on the
    already mixed 32-bit shingle hashes.
    """

    def __init__(self, num_perm: int = 128, ngram: int = 3, seed: int = 1) -> None:
        rng = np.random.default_rng(seed)
        self.num_perm, self.ngram = num_perm, ngram
        self.a = (rng.integers(0, 2**32, num_perm, dtype=np.uint64) | 1).astype(np.uint32)
        self.b = rng.integers(0, 2**32, num_perm, dtype=np.uint64).astype(np.uint32)
        self._vocab = _Vocabulary()

    def signatures(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), num_perm) uint32 signatures of normalised texts."""
        shingles, starts = self._shingles(texts)
        out = np.empty((len(texts), self.num_perm), dtype=np.uint32)
        buf = np.empty((self.num_perm, _BLOCK), dtype=np.uint32)
        # Blocks of ~32k shingles keep the (num_perm, block) buffer at 16 MB; the shingle
        # axis is last because reduceat along the contiguous axis is ~30x faster.
        for lo, hi in _doc_blocks(starts, _BLOCK):
            end = starts[hi] if hi < len(starts) else len(shingles)
            block = shingles[starts[lo] : end]
            values = buf[:, : len(block)] if len(block) <= _BLOCK else None
            values = np.multiply(self.a[:, None], block[None, :], out=values)
            np.add(values, self.b[:, None], out=values)
            out[lo:hi] = np.minimum.reduceat(values, starts[lo:hi] - starts[lo], axis=1).T
        return out

    def _word_ids(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Texts must already be normalised (see ``normalise``)."""
        lookup, lengths, ids = self._vocab.__getitem__, array("q"), array("q")
        for text in texts:
            words = text.split(" ") if text else []
            lengths.append(len(words))
            ids.extend(map(lookup, words))
        return np.frombuffer(ids, dtype=np.int64), np.frombuffer(lengths, dtype=np.int64)

    def _shingles(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """32-bit hashes of every shingle, concatenated, and each text's first index.

        A text shorter than ``ngram`` words is one shingle of all its words, as in the
        usual ``range(max(len(words) - n + 1, 1))`` loop.
        """
        ids, lengths = self._word_ids(texts)
        word_hash = _splitmix(ids.astype(np.uint64) + _U64(1))
        word_hash = np.concatenate([word_hash, np.zeros(self.ngram, dtype=np.uint64)])
        ends = np.cumsum(lengths)
        word_starts = ends - lengths
        counts = np.maximum(lengths - self.ngram + 1, 1)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        # Position of each shingle's first word in the flat word array.
        pos = np.repeat(word_starts - starts, counts) + np.arange(counts.sum())
        take = np.repeat(np.minimum(lengths, self.ngram), counts)
        h = np.zeros(len(pos), dtype=np.uint64)
        for k in range(self.ngram):
            part = np.where(take > k, word_hash[np.minimum(pos + k, len(word_hash) - 1)], 0)
            h = _splitmix(h ^ part.astype(np.uint64))
        return (h >> _U64(32)).astype(np.uint32), starts.astype(np.int64)


def _doc_blocks(starts: np.ndarray, size: int) -> Iterable[tuple[int, int]]:
    """Ranges of documents whose shingles add up to about ``size`` (at least one document)."""
    lo, n = 0, len(starts)
    while lo < n:
        hi = int(np.searchsorted(starts, starts[lo] + size, side="right"))
        hi = max(hi, lo + 1)
        yield lo, hi
        lo = hi


@lru_cache(maxsize=64)
def lsh_params(threshold: float, num_perm: int, recall_weight: float = 0.5) -> tuple[int, int]:
    """(bands, rows per band) minimising weighted false positive + false negative mass.

    The same criterion as datasketch's ``MinHashLSH`` (areas under the S-curve
    ``1 - (1 - s**r)**b`` below and above the threshold); a higher ``recall_weight`` favours
    recall.
    """
    best, best_err = (1, num_perm), float("inf")
    lo, hi = np.linspace(0.0, threshold, 401), np.linspace(threshold, 1.0, 401)
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            fp = float(np.trapezoid(1 - (1 - lo**r) ** b, lo))
            fn = float(np.trapezoid((1 - hi**r) ** b, hi))
            err = (1 - recall_weight) * fp + recall_weight * fn
            if err < best_err:
                best, best_err = (b, r), err
    return best


BBIT_MASK = 0xFF
"""Signature bits kept per hash function for the similarity check (b = 8)."""


def bbit_similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Jaccard estimates from 8-bit signatures: ``a`` (num_perm,) against ``b`` (n, num_perm).

    Two low bytes match by chance with probability 1/256, so the raw match rate is corrected
    (Li & König 2010, eq. 4 with b = 8).
    """
    chance = 1.0 / (BBIT_MASK + 1)
    matches = (b == a[None, :]).mean(axis=1)
    return np.clip((matches - chance) / (1 - chance), 0.0, 1.0)


class Deduper:
    """Streams rows in, decides duplicates at ``finish``; the first of a group is kept."""

    def __init__(
        self,
        *,
        near: bool = True,
        threshold: float = 0.8,
        num_perm: int = 128,
        ngram: int = 3,
        seed: int = 1,
        chunk_rows: int = 8192,
        recall_weight: float = 0.8,
    ) -> None:
        # recall_weight > 0.5 picks more, shorter bands: fewer missed pairs near the
        # threshold, more candidates for the similarity check to turn away.
        self.near, self.threshold, self.chunk_rows = near, threshold, chunk_rows
        self.bands, self.rows_per_band = lsh_params(threshold, num_perm, recall_weight)
        self._hasher = MinHasher(num_perm, ngram, seed)
        self._band_mult = _splitmix(np.arange(1, self.rows_per_band + 1, dtype=np.uint64))
        self._exact: dict[bytes, int] = {}
        self._removed: list[Removal] = []
        self._rows = array("q")  # rows that passed the exact stage, in input order
        self._pinned: set[int] = set()
        self._pending: list[str] = []
        self._keys: list[np.ndarray] = []  # (chunk, bands) uint64 band keys
        self._bbits: list[np.ndarray] = []  # (chunk, num_perm) uint8 signature bytes
        self._total = 0

    def add(self, row: int, text: str, *, pinned: bool = False) -> None:
        """Row ``row``'s text; a ``pinned`` row stays whatever it matches and is not counted."""
        text = normalise(text)
        first = self._exact.setdefault(_digest(text), row)
        if pinned:
            self._pinned.add(row)
            if first != row:  # the same text as an earlier pinned row: that one stands for both
                return
        else:
            self._total += 1
            if first != row:
                self._removed.append(Removal(row, first, "exact", 1.0))
                return
        self._rows.append(row)
        if self.near:
            self._pending.append(text)
            if len(self._pending) >= self.chunk_rows:
                self._flush()

    def add_many(self, texts: Iterable[str], start: int = 0) -> None:
        for row, text in enumerate(texts, start):
            self.add(row, text)

    def _flush(self) -> None:
        if not self._pending:
            return
        sig = self._hasher.signatures(self._pending)
        self._pending = []
        r = self.rows_per_band
        bands = sig[:, : self.bands * r].astype(np.uint64).reshape(len(sig), self.bands, r)
        keys = (bands * self._band_mult).sum(axis=2, dtype=np.uint64)
        self._keys.append(_splitmix(keys ^ np.arange(self.bands, dtype=np.uint64)))
        self._bbits.append((sig & BBIT_MASK).astype(np.uint8))

    def finish(self) -> DedupReport:
        """Decide near-duplicates among the rows that survived the exact stage."""
        self._flush()
        rows = np.frombuffer(self._rows, dtype=np.int64) if self._rows else np.zeros(0, int)
        near_removed = self._near_removals(rows) if self.near and len(rows) else []
        removed = sorted(self._removed + near_removed, key=lambda r: r.row)
        dropped = {r.row for r in near_removed} | self._pinned
        kept = [int(r) for r in rows if int(r) not in dropped]
        return DedupReport(total=self._total, kept=kept, removed=removed)

    def _near_removals(self, rows: np.ndarray) -> list[Removal]:
        keys = np.concatenate(self._keys)
        bbits = np.concatenate(self._bbits)
        involved = _rows_sharing_a_key(keys)
        buckets: list[dict[int, list[int]]] = [{} for _ in range(self.bands)]
        removals = []
        for i in involved.tolist():
            row_keys = keys[i].tolist()
            candidates = {c for band, k in enumerate(row_keys) for c in buckets[band].get(k, ())}
            pinned = int(rows[i]) in self._pinned
            best = None if pinned else self._best_match(i, sorted(candidates), bbits)
            if best is not None:
                removals.append(Removal(int(rows[i]), int(rows[best[0]]), "near", best[1]))
                continue
            for band, k in enumerate(row_keys):
                buckets[band].setdefault(k, []).append(i)
        return removals

    def _best_match(
        self, i: int, candidates: list[int], bbits: np.ndarray
    ) -> tuple[int, float] | None:
        """The most similar earlier kept row at or above the threshold, if any."""
        if not candidates:
            return None
        sims = bbit_similarity(bbits[i], bbits[candidates])
        j = int(np.argmax(sims))
        if sims[j] < self.threshold:
            return None
        return candidates[j], round(float(sims[j]), 4)


def _rows_sharing_a_key(keys: np.ndarray) -> np.ndarray:
    """Indices (ascending) of rows that share at least one band key with another row."""
    flags = np.zeros(len(keys), dtype=bool)
    for band in range(keys.shape[1]):
        _, inverse, counts = np.unique(keys[:, band], return_inverse=True, return_counts=True)
        flags |= counts[inverse] > 1
    return np.flatnonzero(flags)


def dedup(texts: Iterable[str], *, near: bool = True, threshold: float = 0.8) -> DedupReport:
    """De-duplicate an in-memory sequence; rows are numbered from 0."""
    deduper = Deduper(near=near, threshold=threshold)
    deduper.add_many(texts)
    return deduper.finish()

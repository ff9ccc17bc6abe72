"""Inverted lists over a view's vectors: nearest neighbours without scanning every row.

An exact scan of a namespace's half-precision vectors costs what reading them costs:
75 MB at 100k memories, 770 MB at a million — a few milliseconds, then a hundred and
more. Above `IVF_ABOVE` rows the view groups its rows by the nearest of ``nlist``
centroids (spherical k-means on a sample) and a query scans only the lists whose
centroids are nearest to it, until about `SCAN_FRACTION` of the rows — or of the asker's
rows, for an owner-scoped query — were seen; the best of those are then rescored exactly
(the caller does that, in single precision). A new or re-embedded row joins its nearest
list at once (rows are never moved out of a list: a row found in a list it no longer
belongs to is only one more candidate, rescored like the others).

The lists are packed: rows sorted by list (with offsets) and their half-precision
vectors copied in that order, so that a list is one contiguous slice to score rather
than a gather of scattered rows (the gather dominated: 50k scattered rows cost more than
scanning them). Rows added or re-embedded since are scored from the view's matrix until
they are `REPACK_SHARE` of the rows; then the lists are packed again (one argsort and
one copy of the vectors: about a second at a million rows). The packed copy is a second
half-precision matrix (770 MB at a million rows), not saved in snapshots.
Imports nothing of graphmem; owned by graphmem.view.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CoarseIndex", "IVF_ABOVE", "SCAN_FRACTION"]

#: views with more rows than this search their inverted lists (smaller: an exact scan)
IVF_ABOVE = 200_000
#: share of the (scoped) rows a query scans: the smallest of the swept shares whose
#: recall@10 against the exact scan reached 0.98 (whole namespace and one agent's rows)
#: on half the queries of 49,600 MiniLM-embedded real sentences (benchmarks/ivf_bench.py;
#: 0.25 reached 0.990 and 0.979); on the other half 0.9945 and 0.9925. A real recall
#: this high needs a third of the rows: the lists save about 3x over the exact scan.
SCAN_FRACTION = 0.35
#: a scoped query scans at least this many of its own rows
MIN_SCAN = 4096
#: the lists are packed again when this share of the rows came or changed since
REPACK_SHARE = 0.05
_KMEANS_ITERATIONS = 8
_SAMPLE_PER_LIST = 32
_BATCH = 65536


def list_count(n: int) -> int:
    """Lists for ``n`` rows: about 2 sqrt(n), so that a list holds about sqrt(n) / 2."""
    return int(min(4096, max(16, 2 * np.sqrt(n))))


class CoarseIndex:
    """Rows grouped by their nearest centroid; see the module docstring."""

    def __init__(self, centroids: np.ndarray, assign: np.ndarray | None = None) -> None:
        self.centroids = np.ascontiguousarray(centroids, dtype=np.float32)
        self.assign = np.zeros(0, dtype=np.int32) if assign is None else assign
        self.size = len(self.assign)  # rows assigned (the array has room for more)
        self._order = np.zeros(0, dtype=np.int64)  # rows sorted by list (CSR) ...
        self._offsets = np.zeros(len(self.centroids) + 1, dtype=np.int64)
        self._packed: np.ndarray | None = None  # ... and their vectors in that order
        self._packed_rows = 0  # rows [0, this) were packed; later ones are scored apart
        self._stale: set[int] = set()  # packed rows re-embedded since

    @classmethod
    def train(cls, vectors: np.ndarray, seed: int = 0) -> "CoarseIndex":
        """Centroids from a sample of ``vectors`` (rows of unit vectors), every row
        assigned to its nearest."""
        n = len(vectors)
        nlist = min(list_count(n), n)
        rng = np.random.default_rng(seed)
        sample_size = min(n, nlist * _SAMPLE_PER_LIST)
        sample = np.asarray(vectors[np.sort(rng.choice(n, sample_size, replace=False))],
                            dtype=np.float32)
        centroids = sample[rng.choice(sample_size, nlist, replace=False)].copy()
        for _ in range(_KMEANS_ITERATIONS):
            nearest = _nearest_centroid(sample, centroids)
            sums = np.zeros_like(centroids)
            np.add.at(sums, nearest, sample)
            empty = ~np.bincount(nearest, minlength=nlist).astype(bool)
            sums[empty] = sample[rng.choice(sample_size, int(empty.sum()))]  # reseed
            centroids = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        index = cls(centroids)
        index.add(0, vectors)
        return index

    def add(self, first_row: int, vectors: np.ndarray) -> None:
        """Assign rows ``first_row ..`` (their ``vectors``) to their nearest lists; a row
        already assigned is moved (re-embedded)."""
        end = first_row + len(vectors)
        if end > len(self.assign):
            grown = np.zeros(max(end, 2 * len(self.assign)), dtype=np.int32)
            grown[:len(self.assign)] = self.assign
            self.assign = grown
        self.size = max(self.size, end)
        for lo in range(0, len(vectors), _BATCH):
            part = np.asarray(vectors[lo:lo + _BATCH], dtype=np.float32)
            self.assign[first_row + lo:first_row + lo + len(part)] = \
                _nearest_centroid(part, self.centroids)
        self._stale.update(range(first_row, min(end, self._packed_rows)))

    def search(self, query: np.ndarray, scope: np.ndarray | None, n: int,
               half: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, approximate scores) of the candidates for ``query``: the rows of the
        nearest lists, about `SCAN_FRACTION` of the rows of ``scope`` (sorted rows;
        None: all ``n``), scored in half precision. ``half`` is the view's
        half-precision matrix (rows added or re-embedded since the lists were packed
        are read from it)."""
        if self._packed is None or self._unpacked(n) > REPACK_SHARE * n:
            self._pack(half, n)
        assert self._packed is not None
        order, offsets = self._order, self._offsets
        scoped = n if scope is None else len(scope)
        share = max(scoped / n, 1e-9)
        budget = max(SCAN_FRACTION * scoped, min(MIN_SCAN, scoped)) / share
        ranked = np.argsort(-(self.centroids @ np.asarray(query, dtype=np.float32)))
        sizes = np.diff(offsets)[ranked]
        take = ranked[:int(np.searchsorted(np.cumsum(sizes), budget)) + 1]
        q = _torch_half(query)
        rows = [order[offsets[i]:offsets[i + 1]] for i in take]
        scores = [_scores(self._packed[offsets[i]:offsets[i + 1]], q) for i in take]
        extra = self._extra_rows(n)
        if len(extra):
            rows.append(extra)
            scores.append(_scores(half[extra], q))
        all_rows, all_scores = np.concatenate(rows), np.concatenate(scores)
        keep = all_rows < n
        if self._stale:  # re-embedded since packing: their packed vectors are old
            keep[:len(all_rows) - len(extra)] &= ~np.isin(
                all_rows[:len(all_rows) - len(extra)], np.fromiter(self._stale, np.int64))
        if scope is not None:
            keep &= _member(all_rows, scope, n)
        return all_rows[keep], all_scores[keep]

    def _unpacked(self, n: int) -> int:
        return n - self._packed_rows + len(self._stale)

    def _extra_rows(self, n: int) -> np.ndarray:
        tail = np.arange(self._packed_rows, n, dtype=np.int64)
        if not self._stale:
            return tail
        return np.union1d(np.fromiter(self._stale, np.int64), tail)

    def _pack(self, half: np.ndarray, n: int) -> None:
        """Rows sorted by list, with offsets, and their vectors in that order: a list is
        then one contiguous slice to score, not a gather of scattered rows."""
        assign = self.assign[:n]
        self._order = np.argsort(assign, kind="stable")
        counts = np.bincount(assign, minlength=len(self.centroids))
        self._offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self._packed = np.ascontiguousarray(half[self._order], dtype=np.float16)
        self._packed_rows = n
        self._stale = set()


def _torch_half(vector: np.ndarray):
    import torch

    return torch.from_numpy(np.ascontiguousarray(vector, dtype=np.float16))


def _scores(half: np.ndarray, query) -> np.ndarray:
    """Approximate cosines of half-precision rows (torch has the fast kernel)."""
    import torch

    return (torch.from_numpy(half) @ query).float().numpy()


def _nearest_centroid(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    return np.argmax(vectors @ centroids.T, axis=1).astype(np.int32)


def _member(rows: np.ndarray, scope: np.ndarray, n: int) -> np.ndarray:
    """Which of ``rows`` are in the sorted ``scope``."""
    mask = np.zeros(n, dtype=bool)
    mask[scope] = True
    return mask[rows]

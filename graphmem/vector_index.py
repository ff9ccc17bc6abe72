"""Nearest neighbours over a large view's vectors without scanning every row.

An exact scan of a namespace's half-precision vectors costs what reading them costs:
75 MB at 100k memories, 770 MB at a million — a few milliseconds, then a hundred and
more. Above `IVF_ABOVE` rows the view keeps an index (faiss's ``IndexIVFPQFastScan``):
every row sits in the list of its nearest of ``nlist`` centroids (about 2 sqrt(n)),
stored not as its vector but as a product-quantised code of four bits per 4 dimensions
(48 bytes for 384, and 8 for its row number: 56 MB at a million rows, against 770 MB of
half precision). A query scores, by table look-ups made 32 codes at a time in the
processor's vector registers ("fast scan"), the codes of the `PROBE_SHARE` of the lists
whose centroids are nearest to it; an owner-scoped query skips the rows outside its
scope (a bitmap of them). The best candidates are then rescored exactly, in single
precision, by the caller (the view), so a code's error moves a row only in or out of
the candidates, never in the order returned.

Codes of one byte per 8 dimensions (``IndexIVFPQ``, read one code at a time: earlier
releases) found the same neighbours of 91,155 real sentences (recall@10 against the
exact scan 0.994 and 0.9905 in one agent's rows, against 0.996 and 0.9905 now) and were
slower to scan: at a million memories a recall (its question embedded already) took
18.3 ms on average (p95 26.4) against 16.1 (p95 22.2) with fast scan, the two indexes
in turn in one process. An index an earlier release saved in a snapshot still serves,
and is `outdated`: the view trains one of this kind on a thread meanwhile.

A new row joins its list at once. A re-embedded row is added again under the same row
number: its old code stays behind and can only bring the row back as one more
candidate, which the rescoring scores by its current vector (repeats are dropped). When
old codes are `REBUILD_SHARE` of the index, the view trains a new one.

Training takes seconds (about 7 at 91,000 rows on a loaded machine, 24 at a
million on both cores), so a view that outgrows an exact scan trains its index on a thread
(`Training`; faiss lets go of the interpreter while it works) and scans exactly until
the index is ready; one that is trained again keeps searching the old index meanwhile.

Snapshots keep the index as faiss's own serialisation (bytes, no pickle).
Imports nothing of graphmem; owned by graphmem.view.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from functools import lru_cache
from typing import Iterator

import numpy as np

__all__ = ["CoarseIndex", "IVF_ABOVE", "PROBE_SHARE", "Training"]

#: views with more rows than this search their index (smaller: an exact scan, which
#: costs about 10 ms at 100,000 rows and 2 at 20,000, against under 1 ms through the
#: index at either; the recall figures below were measured at 49,600 rows)
IVF_ABOVE = 50_000
#: share of the lists a query probes: the smallest share (with the view's rescoring
#: margin) whose recall@10 against the exact scan reached 0.98 over the whole namespace
#: and over one agent's tenth, on half the queries of 49,600 MiniLM-embedded real
#: sentences; on the other half 0.9905 and 0.982 (benchmarks/ivf_bench.py)
PROBE_SHARE = 0.25
#: the index is trained again when codes of re-embedded rows are this share of it
REBUILD_SHARE = 0.05
#: dimensions one part of a code (4 bits) stands for
_DIMS_PER_PART = 4
#: training rows per list (faiss warns below 39); more cost time and gain little
_SAMPLE_PER_LIST = 50
#: scopes whose bitmaps are kept (one per agent that recalls)
_BITMAPS = 64


@lru_cache(maxsize=1)
def _faiss():
    import faiss

    return faiss


@contextmanager
def _threads(n: int) -> Iterator[None]:
    """faiss on ``n`` threads, then as before (OpenMP's setting is the calling thread's,
    and torch reads it too: set for good, it would slow the embedding model)."""
    faiss = _faiss()
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(n)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(before)


def _all_cores():
    """Training and adding many rows use every core."""
    return _threads(os.cpu_count() or 1)


def _one_thread():
    """A query scans a few megabytes: one thread, as for the view's own products
    (graphmem.view_search.one_blas_thread); waking others costs more than it saves."""
    return _threads(1)


def list_count(n: int) -> int:
    """Lists for ``n`` rows: about 2 sqrt(n), so that a list holds about sqrt(n) / 2."""
    return int(min(4096, max(16, 2 * np.sqrt(n))))


class CoarseIndex:
    """Rows as codes in the lists of their nearest centroids; see the module docstring."""

    def __init__(self, index, size: int) -> None:
        self.index = index  # a trained faiss IndexIVFPQ over inner products
        self.size = size  # rows [0, size) were added
        # scope -> (scope, bitmap): an agent's rows come as the one array the view caches
        # for it, and a bitmap of a million rows costs a few milliseconds to make
        self._bitmaps: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    @classmethod
    def train(cls, vectors: np.ndarray, seed: int = 0) -> "CoarseIndex":
        """An index trained on a sample of ``vectors`` (rows of unit vectors), every row
        added."""
        faiss = _faiss()
        n, dim = vectors.shape
        if n < 16:
            raise ValueError(f"an index needs at least 16 rows to train on, not {n}")
        nlist = min(list_count(n), n)
        rng = np.random.default_rng(seed)
        sample_size = min(n, max(nlist * _SAMPLE_PER_LIST, 4096))
        sample = np.ascontiguousarray(
            vectors[np.sort(rng.choice(n, sample_size, replace=False))], dtype=np.float32)
        index = faiss.IndexIVFPQFastScan(faiss.IndexFlatIP(dim), dim, nlist,
                                         _subquantizers(dim), 4, faiss.METRIC_INNER_PRODUCT)
        index.cp.seed = seed
        index.pq.cp.seed = seed
        with _all_cores():
            index.train(sample)
        built = cls(index, 0)
        built.add(0, vectors)
        return built

    @property
    def outdated(self) -> bool:
        """Whether the view should train a new index: `REBUILD_SHARE` of the codes are
        re-embedded rows', or the index is of an older kind (a snapshot of an earlier
        release kept ``IndexIVFPQ``, which scans its codes one at a time)."""
        return self.stale_share > REBUILD_SHARE or not isinstance(
            self.index, _faiss().IndexIVFPQFastScan)

    @property
    def stale_share(self) -> float:
        """Share of the codes that belong to rows re-embedded since."""
        total = self.index.ntotal
        return (total - self.size) / total if total else 0.0

    def add(self, first_row: int, vectors: np.ndarray) -> None:
        """Add rows ``first_row ..`` (their ``vectors``); a row already added is added
        again (re-embedded: its old code stays, see the module docstring)."""
        for lo in range(0, len(vectors), 65536):
            part = np.ascontiguousarray(vectors[lo:lo + 65536], dtype=np.float32)
            ids = np.arange(first_row + lo, first_row + lo + len(part), dtype=np.int64)
            with _all_cores() if len(part) > 4096 else _one_thread():
                self.index.add_with_ids(part, ids)
        self.size = max(self.size, first_row + len(vectors))

    def search(self, query: np.ndarray, scope: np.ndarray | None, n: int,
               fetch: int) -> np.ndarray:
        """Rows (of ``scope``, sorted rows; None: all ``n``), at most ``fetch``, whose
        codes are nearest to ``query`` in the probed lists, nearest first."""
        faiss = _faiss()
        nprobe = max(1, int(np.ceil(PROBE_SHARE * self.index.nlist)))
        params = faiss.SearchParametersIVF(nprobe=nprobe)
        if scope is not None:
            bitmap = self._bitmap(scope, max(n, self.size))
            params = faiss.SearchParametersIVF(
                nprobe=nprobe, sel=faiss.IDSelectorBitmap(8 * len(bitmap),
                                                          faiss.swig_ptr(bitmap)))
        # repeats of a re-embedded row take places: ask for as many more as there are
        extra = self.index.ntotal - self.size
        with _one_thread():
            _, found = self.index.search(np.ascontiguousarray(query, dtype=np.float32)[None],
                                         fetch + min(extra, fetch), params=params)
        rows = found[0]
        rows = rows[(rows >= 0) & (rows < n)]
        _, first = np.unique(rows, return_index=True)
        return rows[np.sort(first)][:fetch]

    def _bitmap(self, scope: np.ndarray, n: int) -> np.ndarray:
        """One bit a row, set for the rows of ``scope``; kept while the view keeps
        handing out the same array (it makes a new one when the scope changes)."""
        kept = self._bitmaps.get(id(scope))
        if kept is not None and kept[0] is scope and 8 * len(kept[1]) >= n:
            return kept[1]
        mask = np.zeros(n, dtype=bool)
        mask[scope] = True
        bitmap = np.packbits(mask, bitorder="little")
        if len(self._bitmaps) >= _BITMAPS:
            self._bitmaps.pop(next(iter(self._bitmaps)))
        self._bitmaps[id(scope)] = (scope, bitmap)
        return bitmap

    def to_bytes(self) -> np.ndarray:
        """The index as faiss serialises it, and the row count (for a snapshot)."""
        data = _faiss().serialize_index(self.index)
        return np.concatenate([np.array([self.size], dtype=np.int64).view(np.uint8), data])

    @classmethod
    def from_bytes(cls, data: np.ndarray) -> "CoarseIndex":
        size = int(np.asarray(data[:8]).view(np.int64)[0])
        return cls(_faiss().deserialize_index(np.ascontiguousarray(data[8:])), size)


class Training:
    """A `CoarseIndex` being trained on a thread over rows ``[0, len(vectors))``.

    ``vectors`` is read while the owner goes on: rows the owner changes meanwhile are
    noted (`changed`) and added again when the index is taken (`take`), so a code made
    from a vector as it was before can only bring its row in as one more candidate.
    """

    def __init__(self, vectors: np.ndarray, seed: int = 0) -> None:
        self.changed: set[int] = set()
        self._result: CoarseIndex | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(vectors, seed), daemon=True,
                                        name="graphmem-vector-index")
        self._thread.start()

    def _run(self, vectors: np.ndarray, seed: int) -> None:
        try:
            self._result = CoarseIndex.train(vectors, seed=seed)
        except BaseException as exc:  # noqa: BLE001 - handed to the owner by take()
            self._error = exc
        finally:
            self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Whether training finished within ``timeout`` seconds (None: however long)."""
        return self._done.wait(timeout)

    def take(self, matrix: np.ndarray, n: int) -> CoarseIndex:
        """The trained index (after `wait`), caught up with ``matrix``'s rows ``[0, n)``:
        the rows added and changed since training began. Raises what training raised."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._result is not None
        index = self._result
        trained = index.size
        if trained < n:
            index.add(trained, matrix[trained:n])
        for row in sorted(r for r in self.changed if r < trained):
            index.add(row, matrix[row:row + 1])
        return index


def _subquantizers(dim: int) -> int:
    """Parts of a code: one (4 bits) per `_DIMS_PER_PART` dimensions, as a divisor of
    ``dim``."""
    m = max(1, dim // _DIMS_PER_PART)
    while dim % m:
        m -= 1
    return m

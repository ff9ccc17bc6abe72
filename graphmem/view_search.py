"""Nearest neighbours of a vector among a namespace view's rows (`NamespaceView`).

The view's search half: an exact scan of the rows (single precision), or, past
`vector_index.IVF_ABOVE` rows, its index's candidates rescored exactly;
forgotten memories are left out by the view's row columns. `VectorSearch` is a base of
`graphmem.view.NamespaceView` and reads the view's state (declared below); it owns none.
`one_blas_thread` is the context every matrix-vector product of the views runs in.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from graphmem import vector_index
from graphmem.untraced import IdList
from graphmem.view_rows import RowColumns


@lru_cache(maxsize=1)
def _blas_controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread():
    """A context in which numpy's BLAS uses one thread.

    The view's matrix-vector products are memory-bound, and BLAS worker threads keep
    spinning after each call, starving the embedding model's threads: measured here,
    one-sentence embedding p50 went from 35 ms to 12 ms (p95 117 ms to 15 ms) when the
    products ran on one BLAS thread, at no cost to the products themselves.
    """
    return _blas_controller().limit(limits=1, user_api="blas")


class VectorSearch:
    """`nearest` and its ways, over the state a `NamespaceView` keeps."""

    _ids: IdList
    _matrix: np.ndarray
    _columns: RowColumns
    _coarse: vector_index.CoarseIndex | None
    _training: vector_index.Training | None

    def nearest(self, vector: np.ndarray, k: int,
                rows: np.ndarray | None = None) -> list[tuple[str, float]]:
        """The ``k`` memories most similar to ``vector`` (among ``rows`` if given, sorted),
        best first, as (id, score): `nearest_rows` named."""
        return self.named(*self.nearest_rows(vector, k, rows))

    def nearest_rows(self, vector: np.ndarray, k: int,
                     rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the ``k`` memories most similar to ``vector`` (among ``rows`` if
        given, sorted), best first, and their scores: two arrays, for a caller that goes
        on by rows (at a million memories a recall reads 500 neighbours, and naming them
        and finding their rows again cost a millisecond).

        Scores are exact cosines. A view of more than `vector_index.IVF_ABOVE` rows
        rescores only the candidates its index finds (`nearest_ivf`) when there are more
        than `IVF_SCOPE_MIN` rows to search; otherwise, and while its index is trained
        on a thread (`index_ready`), every row is scored (`nearest_exact`).
        """
        n = len(self._ids)
        if n > vector_index.IVF_ABOVE and (n if rows is None else len(rows)) > IVF_SCOPE_MIN \
                and self.index_ready():
            return self._ivf_rows(vector, k, rows)
        return self._exact_rows(vector, k, rows)

    def index_ready(self, wait: float | None = 0.0) -> bool:
        """Whether the vector index can serve a search, waiting up to ``wait`` seconds
        (None: until it can) for one being trained. A missing or stale index
        (`vector_index.REBUILD_SHARE`) starts training on a thread; a stale one serves
        until its successor is ready."""
        training = self._training
        if training is not None and training.wait(wait):
            self._training = None
            self._coarse = training.take(self._matrix, len(self._ids))
        stale = self._coarse is None or self._coarse.outdated
        if stale and self._training is None and len(self._ids) >= 16:
            self._training = vector_index.Training(self._matrix[:len(self._ids)])
            if wait is None or wait > 0:
                return self.index_ready(wait)
        return self._coarse is not None

    def nearest_ivf(self, vector: np.ndarray, k: int,
                    rows: np.ndarray | None = None) -> list[tuple[str, float]]:
        """`nearest` among the best `k` + `RESCORE_MARGIN` candidates of the view's
        index (`vector_index`, kept up with new rows; trained here when it is missing or
        stale and no thread is training it), rescored exactly in single precision."""
        return self.named(*self._ivf_rows(vector, k, rows))

    def _ivf_rows(self, vector: np.ndarray, k: int,
                  rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        n = len(self._ids)
        if n == 0 or k <= 0:
            return _NONE
        if self._training is not None and (self._coarse is None or self._training.done):
            self.index_ready(wait=None)
        if self._coarse is None or (self._training is None and self._coarse.outdated):
            self._coarse = vector_index.CoarseIndex.train(self._matrix[:n])
        elif self._coarse.size < n:
            self._coarse.add(self._coarse.size, self._matrix[self._coarse.size:n])
        candidates = self._coarse.search(vector, rows, n, k + RESCORE_MARGIN)
        if len(candidates) == 0:
            return _NONE
        with one_blas_thread():
            scores = self._matrix[candidates] @ vector
        return self._best(candidates, scores, k)

    def nearest_exact(self, vector: np.ndarray, k: int,
                      rows: np.ndarray | None = None) -> list[tuple[str, float]]:
        """`nearest` by scoring every row (of ``rows``): exact cosines, in single
        precision, on one thread. (A half-precision copy scanned first, then the best
        rescored, cost more a core for small scopes and whole views and less only for
        scattered scopes of 20,000-50,000 rows: `benchmarks/scan_bench.py`.)"""
        return self.named(*self._exact_rows(vector, k, rows))

    def _exact_rows(self, vector: np.ndarray, k: int,
                    rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        n = len(self._ids)
        if n == 0 or k <= 0 or (rows is not None and len(rows) == 0):
            return _NONE
        with one_blas_thread():
            if rows is None:
                candidates, scores = np.arange(n), self._matrix[:n] @ vector
            elif len(rows) > WHOLE_SCAN_SHARE * n:
                candidates, scores = rows, (self._matrix[:n] @ vector)[rows]
            else:
                candidates, scores = rows, self._matrix[rows] @ vector
        return self._best(candidates, scores, k)

    def _best(self, candidates: np.ndarray, scores: np.ndarray,
              k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` best of ``candidates`` by ``scores``, best first, equal scores in
        storage order, less forgotten ones: (rows, scores). (The partition leaves ties in
        an order that depends on ``k``: two memories of the same text came out in one
        order for a recall's narrow search and the other for a wider one.)"""
        k = min(k, len(candidates))
        top = np.argpartition(-scores, k - 1)[:k]
        last = scores[top].min()
        at_last = np.flatnonzero(scores == last)
        if len(at_last) > np.count_nonzero(scores[top] == last):  # a tie cut at k: the
            above = top[scores[top] > last]                       # earliest rows stay
            at_last = at_last[np.argsort(candidates[at_last], kind="stable")]
            top = np.concatenate([above, at_last[:k - len(above)]])
        top = top[np.lexsort((candidates[top], -scores[top]))]
        rows = candidates[top]
        kept = ~self._columns.forgotten[rows]
        return rows[kept], scores[top][kept]

    def named(self, rows: np.ndarray, scores: np.ndarray) -> list[tuple[str, float]]:
        """(id, score) of each of ``rows``, in order."""
        # whole arrays to Python at once: one numpy scalar at a time cost 0.8 ms for the
        # 500 neighbours a recall reads at a million memories
        ids = self._ids
        return [(ids[row], score) for row, score in zip(rows.tolist(), scores.tolist())]


#: no neighbours: (rows, scores)
_NONE = (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32))

#: an exact scan of a scope of more than this share of the view's rows scores every row
#: in one contiguous pass and picks the scope's out: gathering scattered rows first costs
#: about five times as much a row (`benchmarks/scan_bench.py`: the two cost the same
#: for a scope of between a fifth and two fifths of 50,000 or 100,000 rows)
WHOLE_SCAN_SHARE = 1 / 3
#: a search of at most this many rows scans them all, even in a view with inverted lists
IVF_SCOPE_MIN = 50_000
#: candidates beyond k that the index passes to the exact rescoring (chosen with
#: `vector_index.PROBE_SHARE`: 64 lost 0.01 of the index's recall@10)
RESCORE_MARGIN = 190

"""Ordering memories by their similarity to a question, the shared step of several
channels."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from graphmem.view import NamespaceView
from graphmem.view_search import one_blas_thread

#: rows `rows_by_similarity` scores all at once (more: the view's search)
EXACT_MAX = 4096


def by_similarity(view: NamespaceView, ids: Sequence[str], qvec: np.ndarray) -> list[str]:
    """``ids`` ordered by cosine similarity to the query, best first; equal scores in the
    order the memories were stored (never the order of a set, which varies by process)."""
    if not ids:
        return []
    rows = np.sort(np.fromiter((view.row_of(m) for m in ids), dtype=np.int64, count=len(ids)))
    return [view.id_at(row) for row in _nearest_first(view, rows, qvec).tolist()]


def rows_by_similarity(view: NamespaceView, rows: np.ndarray, qvec: np.ndarray,
                       depth: int) -> list[str]:
    """The ``depth`` memories at ``rows`` (sorted view rows) nearest the query, best
    first: as `by_similarity` orders their ids (equal scores in storage order) while
    they are few enough to score all at once, and through the view's search
    (`NamespaceView.nearest`: its index past a size) when more."""
    if len(rows) > EXACT_MAX:
        return [mid for mid, _ in view.nearest(qvec, depth, rows)]
    return [view.id_at(row) for row in _nearest_first(view, rows, qvec)[:depth].tolist()]


def _nearest_first(view: NamespaceView, rows: np.ndarray, qvec: np.ndarray) -> np.ndarray:
    """``rows`` (sorted) by exact cosine to the query, best first; equal scores in row
    order."""
    if not len(rows):
        return rows
    with one_blas_thread():
        scores = view.vectors_at(rows) @ qvec
    return rows[np.argsort(-scores, kind="stable")]


def similarities(view: NamespaceView, ids: Sequence[str], qvec: np.ndarray) -> dict[str, float]:
    """Cosine of each memory to the query (one stacked product, in storage order)."""
    if not ids:
        return {}
    ids = sorted(ids, key=view.row_of)
    with one_blas_thread():
        scores = view.vectors(ids) @ qvec
    return {mid: float(s) for mid, s in zip(ids, scores)}

"""Ordering memories by their similarity to a question, the shared step of several
channels."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from graphmem.view import NamespaceView
from graphmem.view_search import one_blas_thread


def by_similarity(view: NamespaceView, ids: Sequence[str], qvec: np.ndarray) -> list[str]:
    """``ids`` ordered by cosine similarity to the query, best first; equal scores in the
    order the memories were stored (never the order of a set, which varies by process)."""
    if not ids:
        return []
    ids = sorted(ids, key=view.row_of)
    with one_blas_thread():
        scores = view.vectors(ids) @ qvec
    order = np.argsort(-scores, kind="stable")
    return [ids[i] for i in order]


def similarities(view: NamespaceView, ids: Sequence[str], qvec: np.ndarray) -> dict[str, float]:
    """Cosine of each memory to the query (one stacked product, in storage order)."""
    if not ids:
        return {}
    ids = sorted(ids, key=view.row_of)
    with one_blas_thread():
        scores = view.vectors(ids) @ qvec
    return {mid: float(s) for mid, s in zip(ids, scores)}

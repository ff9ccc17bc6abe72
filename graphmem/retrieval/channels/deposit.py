"""deposit: dense over whole deposits, one memory for each.

A long answer cut into many crisp atoms puts some atom near almost any question, above
a short statement of a preference; dense retrieval over whole turns does not suffer
that. Here each memory is scored by the mean similarity of itself and its owned
AFFILIATED siblings (the other atoms of its deposit), and a deposit is listed once: a
memory whose sibling is already listed is skipped.

Cost is bounded by the view's own vector index: only the deposits of the
``CANDIDATES`` x depth memories nearest the question are scored (a deposit's best
member is at least as near as the deposit's mean, so a deposit that ranks is found
through it), never every owned memory.

The order is a function of the memories' texts and vectors alone, never of the order a
view read them in (a view read afresh holds its rows in another order than one kept in
step, and memory ids are random): means are exact sums (``math.fsum``) of similarities
computed row by row, rounded, and equal means go to the member nearest the question,
then by text.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from graphmem.retrieval.channels.base import RankContext

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query
    from graphmem.view import NamespaceView

#: nearest memories read per place asked for: their deposits are the candidates
CANDIDATES = 10
#: decimals a similarity is compared at: below this two scores are equal, so that the
#: last bits of a dot product never decide an order
DECIMALS = 9


@dataclass(frozen=True)
class Deposit:
    name: str = "deposit"
    order: int = 80
    neighbours: int = CANDIDATES

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        view = ctx.view
        near = ctx.nearest(query, depth * CANDIDATES)
        seeds = np.fromiter((view.row_of(mid) for mid, _ in near), dtype=np.int64,
                            count=len(near))
        owned = ctx.owned_rows()
        of, sibling = _members(view, owned, seeds)
        extra = np.setdiff1d(sibling, seeds)  # a sibling may rank too
        more_of, more_sibling = _members(view, owned, extra)
        groups = _groups(np.concatenate([seeds, extra]), np.concatenate([of, more_of]),
                         np.concatenate([sibling, more_sibling]))
        every = np.unique(np.concatenate([seeds, extra, more_sibling]))
        own = similarities(view, every, query.vector)
        mean = {m: round(own[m] if len(g) == 1 else math.fsum(own[x] for x in g) / len(g),
                         DECIMALS) for m, g in groups.items()}
        listed: list[str] = []
        covered: set[int] = set()
        for row in _ordered(view, groups, mean, own):
            if row in covered:
                continue
            listed.append(view.id_at(row))
            covered.update(groups[row])
            if len(listed) == depth:
                break
        return listed


def _members(view: NamespaceView, owned: np.ndarray,
             rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(of, sibling) rows: the AFFILIATED siblings of the memories at ``rows`` that the
    asker owns (``owned``: its sorted rows) and that are not forgotten."""
    of, sibling = view.sibling_rows(rows)
    if not len(sibling) or not len(owned):
        return of[:0], sibling[:0]
    at = np.minimum(np.searchsorted(owned, sibling), len(owned) - 1)
    keep = (owned[at] == sibling) & ~view.forgotten_at(sibling)
    return of[keep], sibling[keep]


def _groups(rows: np.ndarray, of: np.ndarray, sibling: np.ndarray) -> dict[int, list[int]]:
    """Each of ``rows`` and its siblings (``of``, ``sibling``: pairs of rows), itself
    first (in no particular order after it: a group is summed exactly and covered as a
    set)."""
    order = np.argsort(of, kind="stable")
    of, sibling = of[order], sibling[order]
    starts = np.searchsorted(of, rows, side="left").tolist()
    ends = np.searchsorted(of, rows, side="right").tolist()
    siblings = sibling.tolist()
    return {row: [row, *siblings[lo:hi]] for row, lo, hi in zip(rows.tolist(), starts, ends)}


def _ordered(view: NamespaceView, groups: dict[int, list[int]], mean: dict[int, float],
             own: dict[int, float]) -> list[int]:
    """By mean, then by the member's own similarity; equal ones (rare) by text, then
    row. Only those are read for their text: a record is made when first read."""
    key = {m: (-mean[m], -round(own[m], DECIMALS)) for m in groups}
    tied = {k for k, n in Counter(key.values()).items() if n > 1}
    records = view.records
    return sorted(groups, key=lambda m: (*key[m], records[view.id_at(m)].text, m)
                  if key[m] in tied else (*key[m], "", 0))


def similarities(view: NamespaceView, rows: np.ndarray, vector: np.ndarray) -> dict[int, float]:
    """Cosine of the memory at each of ``rows`` to ``vector``, each computed on its own
    row in double precision (the same value whatever other rows are scored with it)."""
    if not len(rows):
        return {}
    stacked = view.vectors_at(rows).astype(np.float64)
    scores = (stacked * np.asarray(vector, dtype=np.float64)).sum(axis=1)
    return dict(zip(rows.tolist(), scores.tolist()))


CHANNEL = Deposit()

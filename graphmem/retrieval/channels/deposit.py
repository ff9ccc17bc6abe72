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
        seeds = [mid for mid, _ in ctx.nearest(query, depth * CANDIDATES)]
        groups = {m: group_of(view, ctx.owned, m) for m in seeds}
        for m in {x for g in list(groups.values()) for x in g} - groups.keys():
            groups[m] = group_of(view, ctx.owned, m)  # a sibling may rank too
        own = similarities(view, {x for g in groups.values() for x in g}, query.vector)
        mean = {m: round(own[m] if len(g) == 1 else math.fsum(own[x] for x in g) / len(g),
                         DECIMALS) for m, g in groups.items()}
        listed: list[str] = []
        covered: set[str] = set()
        for mid in _ordered(view, groups, mean, own):
            if mid in covered:
                continue
            listed.append(mid)
            covered.update(groups[mid])
            if len(listed) == depth:
                break
        return listed


def _ordered(view: NamespaceView, groups: dict[str, list[str]], mean: dict[str, float],
             own: dict[str, float]) -> list[str]:
    """By mean, then by the member's own similarity; equal ones (rare) by text, then
    row. Only those are read for their text: a record is made when first read."""
    key = {m: (-mean[m], -round(own[m], DECIMALS)) for m in groups}
    tied = {k for k, n in Counter(key.values()).items() if n > 1}
    records = view.records
    return sorted(groups, key=lambda m: (*key[m], records[m].text, view.row_of(m))
                  if key[m] in tied else (*key[m], "", 0))


def group_of(view: NamespaceView, owned, mid: str) -> list[str]:
    """``mid`` and its AFFILIATED siblings the asker owns that are not forgotten (in no
    particular order: a group is summed exactly and covered as a set)."""
    if not view.has_siblings(mid):
        return [mid]
    return [mid, *(x for x in view.records[mid].affiliated
                   if x in owned and x in view.records and not view.is_forgotten(x))]


def similarities(view: NamespaceView, ids: set[str], vector: np.ndarray) -> dict[str, float]:
    """Cosine of each memory to ``vector``, each computed on its own row in double
    precision (the same value whatever other rows are scored with it)."""
    if not ids:
        return {}
    order = sorted(ids, key=view.row_of)
    stacked = view.vectors(order).astype(np.float64)
    scores = (stacked * np.asarray(vector, dtype=np.float64)).sum(axis=1)
    return dict(zip(order, scores.tolist()))


CHANNEL = Deposit()

"""deposit: dense over whole deposits, one memory for each.

A long answer cut into many crisp atoms puts some atom near almost any question, above
a short statement of a preference; dense retrieval over whole turns does not suffer
that. Here each owned memory is scored by the mean vector of itself and its owned
AFFILIATED siblings (the other atoms of its deposit), and a deposit is listed once: a
memory whose sibling is already listed is skipped.

It scores every owned memory per recall (no index of deposit vectors exists yet), so
above ``SCAN_MAX`` owned memories it ranks nothing rather than make recall slow; the
benchmarks it was fitted on stay far below that (PrefEval at 300 distractors: a few
thousand atoms).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from graphmem.retrieval.channels.base import RankContext
from graphmem.view import one_blas_thread

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


#: owned memories above which the channel is silent (a scan of this many costs tens of
#: milliseconds)
SCAN_MAX = 20_000


@dataclass(frozen=True)
class Deposit:
    name: str = "deposit"
    order: int = 80

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        view = ctx.view
        owned = ctx.owned
        rows = view.owned_rows(ctx.agent)
        if len(rows) > SCAN_MAX:
            return []
        ids = [view.id_at(int(r)) for r in rows]
        ids = [m for m in ids if not view.records[m].forgotten]
        if not ids:
            return []
        with one_blas_thread():
            own = np.stack([view.vector(m) for m in ids]) @ query.vector
            score = dict(zip(ids, own.tolist()))
            groups = [[m, *sorted(x for x in view.records[m].affiliated
                                  if x in owned and x in score)] for m in ids]
            means = np.array([np.mean([score[x] for x in g]) for g in groups])
        order = np.argsort(-means, kind="stable")  # ids are in row order: ties by row
        listed: list[str] = []
        covered: set[str] = set()
        for i in order:
            mid = ids[i]
            if mid in covered:
                continue
            listed.append(mid)
            covered.update(groups[i])
            if len(listed) == depth:
                break
        return listed
CHANNEL = Deposit()

"""hop_dense: a second search, by the question's vector moved towards its first hits.

Nearest neighbours of the question's vector plus the mean of its first hits' vectors
(`retrieval.feedback.centroid`), the first hits themselves left out: memories like what
answered first, still about what was asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.channels.base import RankContext
from graphmem.retrieval.feedback import centroid, first_hits

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class HopDense:
    name: str = "hop_dense"
    order: int = 71

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        seeds = first_hits(ctx, query)
        if not seeds:
            return []
        rows = ctx.owned_rows()
        found = ctx.view.nearest(centroid(ctx, query, seeds), depth + len(seeds), rows)
        skip = set(seeds)
        return [mid for mid, _ in found if mid not in skip][:depth]


CHANNEL = HopDense()

"""dense: cosine similarity of the question's embedding."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.channels.base import RankContext

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class Dense:
    name: str = "dense"
    # after bm25 and words, which read only the question's words: the question is
    # embedded on another thread while they rank (`query.parse_query`)
    order: int = 27
    neighbours: int = 1

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        return [mid for mid, _ in ctx.nearest(query, depth)]


CHANNEL = Dense()

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
    order: int = 10

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        return [mid for mid, _ in ctx.nearest(query, depth)]


CHANNEL = Dense()

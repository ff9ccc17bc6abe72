"""speaker: what the agents a question names said themselves, among what the asker owns,
most similar first: a question about someone is most often answered by their own words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.channels.base import RankContext

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class Speaker:
    name: str = "speaker"
    order: int = 60

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        if not query.subjects:
            return []
        rows = ctx.asserted_by(query.subjects)
        return [mid for mid, _ in ctx.view.nearest(query.vector, depth, rows)]


CHANNEL = Speaker()

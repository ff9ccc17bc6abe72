"""graph: memories that mention the entities the question names, most entities first,
then by similarity."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.channels.base import RankContext
from graphmem.retrieval.similarity import by_similarity

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class Graph:
    name: str = "graph"
    order: int = 30

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        view, hits = ctx.view, dict[str, int]()
        for entity_id in query.entity_ids:
            for mid in view.mentioning(entity_id) & ctx.owned:
                if not view.is_forgotten(mid):
                    hits[mid] = hits.get(mid, 0) + 1
        if not hits:
            return []
        position = {mid: i for i, mid in enumerate(by_similarity(view, list(hits),
                                                                 query.vector))}
        return sorted(hits, key=lambda mid: (-hits[mid], position[mid]))[:depth]


CHANNEL = Graph()

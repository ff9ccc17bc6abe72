"""bm25: the in-process BM25 index of every wording a memory has, and its context."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.channels.base import RankContext

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class BM25:
    name: str = "bm25"
    order: int = 20

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        return ctx.text_index.search(query.text, depth, ctx.owned, ctx.agent,
                                     ctx.owned_rows())


CHANNEL = BM25()

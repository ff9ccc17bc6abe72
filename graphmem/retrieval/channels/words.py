"""words: BM25 over what each memory says (its wordings), without the context it was
deposited in. The bm25 channel also reads the context, which finds a terse reply by the
question it answered, but lets a long neighbouring turn carry every memory deposited
after it; this channel ranks a memory by its own words only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.channels.base import RankContext

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class Words:
    name: str = "words"
    order: int = 25

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        return ctx.text_index.search_words(query.text, depth, rows=ctx.owned_rows())


CHANNEL = Words()

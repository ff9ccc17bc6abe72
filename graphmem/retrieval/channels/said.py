"""said: what the agents a question names said themselves, by the question's other words.

The question split in two (no model): the agents it names pick the memories (those they
asserted, among what the asker owns), and the rest of its words rank them by BM25 over
each memory's own wordings. The names are left out of the ranking words: an atomised
memory carries its speaker's name ("I went camping" -> "Melanie went camping"), so the
name matches nearly every candidate and would rank them by length. A list question
("What activities does Melanie do?") has its answers scattered over many sessions;
the speaker channel ranks them by one vector, this one by the asked relation's words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.channels.base import RankContext

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class Said:
    name: str = "said"
    order: int = 65

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        if not query.subjects or not query.relation_text:
            return []
        rows = ctx.asserted_by(query.subjects)
        return ctx.text_index.search_words(query.relation_text, depth, rows=rows)


CHANNEL = Said()

"""hop: a second search, by the words the question's first hits add to it.

The question's first hits (`retrieval.feedback.first_hits`) lend their rarest words the
question lacks; BM25 over the memories' wordings ranks by the question and those words
together (the question's words always, the added ones while the search reads at most
`bm25.POSTINGS` postings). The first hits themselves are left out: the other channels
have them, this one's use is what they lead to (a list question's other answers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.bm25 import POSTINGS, within_budget
from graphmem.retrieval.channels.base import RankContext
from graphmem.retrieval.feedback import expansion_terms, first_hits

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class Hop:
    name: str = "hop"
    order: int = 70

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        seeds = first_hits(ctx, query)
        terms = expansion_terms(ctx, query, seeds)
        if not terms:
            return []
        # the best of the asker's memories less the seeds: searched among all of them,
        # as deep again as there are seeds (a copy of the owned set, less the seeds,
        # cost more than the search at a million memories)
        words = ctx.text_index.words
        weights = within_budget(words, words.terms(" ".join([query.text, *terms])), POSTINGS,
                                always=words.terms(query.text))
        found = words.search_terms(weights, depth + len(seeds), rows=ctx.owned_rows())
        beyond = [m for m, _ in found if m not in seeds][:depth]
        return [m for m in beyond if not ctx.view.is_forgotten(m)]


CHANNEL = Hop()

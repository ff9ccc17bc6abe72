"""expand: the memories' wordings searched by the question's content words and the
words of the namespace's own vocabulary nearest each of them.

A list question ("What activities does Melanie partake in?") shares few words with its
evidence ("I'm off to pottery class"); the vocabulary's nearest words to "activities"
(hobby, class, camping, ...) do. BM25 over the wordings (the ``words`` index) weighs each
of the question's content words 1 and each neighbour by its cosine to the question word
it came from (the highest, if several). The agents' names are neither searched nor
expanded: the channel ranks by topic alone, so a question that names the wrong person
still finds the other's evidence. Every memory the asker owns is ranked, not only the
named agents' (a channel so restricted cost the adversarial questions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.bm25 import POSTINGS, within_budget
from graphmem.retrieval.channels.base import RankContext
from graphmem.retrieval.tokenize import tokenize

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query

#: vocabulary words per question word: fixed before any figure was seen, and 5 and 30
#: found about the same (docs/evaluation-protocols.md, sixteenth session)
NEIGHBOURS = 15


@dataclass(frozen=True)
class Expand:
    name: str = "expand"
    order: int = 90

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        # the question's own words (weighted 1) always, the neighbours while they fit
        terms = expanded_terms(ctx, query)
        weights = within_budget(ctx.text_index.words, terms, POSTINGS,
                                always={t for t, w in terms.items() if w >= 1.0})
        if not weights:
            return []
        found = ctx.text_index.words.search_terms(weights, depth, rows=ctx.owned_rows())
        return [memory_id for memory_id, _ in found]


def expanded_terms(ctx: RankContext, query: Query) -> dict[str, float]:
    """BM25 term -> weight: the question's content words' terms at 1, their vocabulary
    neighbours' terms at the neighbour's cosine."""
    asked = query.asked
    if asked is None or not asked.words:
        return {}
    vocabulary = ctx.text_index.vocabulary
    vocabulary.catch_up(asked.embed)
    weights: dict[str, float] = {}
    for near in vocabulary.neighbours(asked.vectors, NEIGHBOURS, skip=asked.names):
        for word, cosine in near:
            for term in tokenize(word):
                weights[term] = max(weights.get(term, 0.0), cosine)
    weights.update({term: 1.0 for word in asked.words for term in tokenize(word)})
    return weights


CHANNEL = Expand()

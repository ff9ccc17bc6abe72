"""kinds: memories that name a member of the category a question asks about.

The question's category nouns expanded through WordNet (`retrieval.categories`:
"countries" -> Sweden, Canada, ...; "sports" -> swimming, soccer, ...), BM25 over the
memories' wordings by those member words alone; when the question names agents, only
what they said is ranked (a list question asks about someone's own doings).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.categories import category_members
from graphmem.retrieval.channels.base import RankContext

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class Kinds:
    name: str = "kinds"
    order: int = 75

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        members = category_members(query.relation_text or query.text)
        if not members:
            return []
        view = ctx.view
        rows = ctx.asserted_by(query.subjects) if query.subjects else ctx.owned_rows()
        found = ctx.text_index.search_words(" ".join(members), depth, rows=rows)
        return [m for m in found if not view.is_forgotten(m)]


CHANNEL = Kinds()

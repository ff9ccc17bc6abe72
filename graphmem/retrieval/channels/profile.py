"""profile: the asker's own statements of a preference (see ``retrieval.preferences``),
by similarity. For a question in the first person, the constraints channel (the same net,
wider) takes its weight (`RecallConfig.asker_profile`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.channels.base import RankContext
from graphmem.retrieval.similarity import rows_by_similarity

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class Stated:
    """The asker's own statements the text index marks (``rows_of``: the name of its
    method that keeps those of some rows), by similarity to the question."""

    name: str
    order: int
    rows_of: str

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        view = ctx.view
        # an agent may have asserted what it no longer holds
        marked = getattr(ctx.text_index, self.rows_of)(view.asserted_rows(ctx.agent))
        stated = ctx.owned_among(marked)
        return rows_by_similarity(view, view.live_rows(stated), query.vector, depth)


CHANNEL = Stated("profile", 50, "preference_rows")

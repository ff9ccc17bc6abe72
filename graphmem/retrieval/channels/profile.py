"""profile: for preference questions, the asker's own statements of a preference (see
``retrieval.preferences``), by similarity."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.channels.base import RankContext
from graphmem.retrieval.similarity import rows_by_similarity

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class Profile:
    name: str = "profile"
    order: int = 50

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        view = ctx.view
        # an agent may have asserted what it no longer holds
        stated = ctx.owned_among(ctx.text_index.preference_rows(view.asserted_rows(ctx.agent)))
        return rows_by_similarity(view, view.live_rows(stated), query.vector, depth)


CHANNEL = Profile()

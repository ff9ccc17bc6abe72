"""constraints: the asker's own statements of a preference or of a rule they keep (a
refusal, a fear, a restriction, a stance: ``retrieval.preferences.states_constraint``),
by similarity. The profile channel's net, wider: it holds "I only use wired
peripherals" and "I am not comfortable with heights", and everyday talk too ("I never go
out on Mondays"), so the fit weighs it per question kind apart from profile."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.channels.base import RankContext
from graphmem.retrieval.similarity import rows_by_similarity

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class Constraints:
    name: str = "constraints"
    order: int = 95

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        view = ctx.view
        # an agent may have asserted what it no longer holds
        stated = ctx.owned_among(ctx.text_index.constraint_rows(view.asserted_rows(ctx.agent)))
        return rows_by_similarity(view, view.live_rows(stated), query.vector, depth)


CHANNEL = Constraints()

"""profile: for preference questions, the asker's own statements of a preference (see
``retrieval.preferences``), by similarity."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

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
        stated = ctx.text_index.preference_rows(view.asserted_rows(ctx.agent))
        owned = ctx.owned_rows()  # an agent may have asserted what it no longer holds
        at = np.minimum(np.searchsorted(owned, stated), max(len(owned) - 1, 0))
        stated = stated[owned[at] == stated] if len(owned) else stated[:0]
        return rows_by_similarity(view, view.live_rows(stated), query.vector, depth)


CHANNEL = Profile()

"""profile: for preference questions, the asker's own statements of a preference (see
``retrieval.preferences``), by similarity."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.channels.base import RankContext
from graphmem.retrieval.similarity import by_similarity

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class Profile:
    name: str = "profile"
    order: int = 50

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        records = ctx.view.records
        stated = [mid for mid in ctx.text_index.preferences & ctx.owned
                  if ctx.agent in records[mid].asserted_by and not records[mid].forgotten]
        return by_similarity(ctx.view, stated, query.vector)[:depth]


CHANNEL = Profile()

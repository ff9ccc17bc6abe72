"""spread: the question's nearest memories, at most one from each day.

A list question's answers lie in different sessions ("What activities does Melanie
partake in?": pottery in one, camping in another), while similarity alone fills the
first places from the one session that talks most about the topic. This channel keeps
only the best memory of each day (memories with no time each count as their own day).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.retrieval.channels.base import RankContext

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query

_DAY_MS = 86_400_000
#: nearest neighbours read to fill ``depth`` days
_READ = 10


@dataclass(frozen=True)
class Spread:
    name: str = "spread"
    order: int = 85
    neighbours: int = _READ

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        view = ctx.view
        found, _ = ctx.nearest_rows(query, depth * _READ)
        days: set[int] = set()
        out: list[str] = []
        for row in found.tolist():
            t = view.time_at(row)
            if t is not None:
                if t // _DAY_MS in days:
                    continue
                days.add(t // _DAY_MS)
            out.append(view.id_at(row))
            if len(out) == depth:
                break
        return out


CHANNEL = Spread()

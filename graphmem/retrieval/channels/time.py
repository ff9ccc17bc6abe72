"""time: for temporal questions, memories on the timelines (StoryArcs) of the named
entities inside the time the question names, or before/after its anchor event (all owned
memories when no entity is named)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from datetime import datetime, timezone

from graphmem.models import to_epoch_ms
from graphmem.retrieval.channels.base import RankContext
from graphmem.retrieval.similarity import by_similarity

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class Time:
    name: str = "time"
    order: int = 40

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        intent = query.intent
        if intent is None:
            return []
        view, owned = ctx.view, ctx.owned
        if query.entity_ids:
            timed = {(t, view.row_of(mid)) for e in query.entity_ids
                     for t, _, mid in view.arc(e) if mid in owned}
        else:
            times, rows = view.times_at(ctx.owned_rows())
            timed = set(zip(times.tolist(), rows.tolist()))
        # memories of one time (the turns of one session) in storage order, the order
        # they were told in: an arc orders them by id, which differs from one ingestion
        # of the same conversation to the next
        on_arcs = [(t, view.id_at(row)) for t, row in sorted(timed)]
        if intent.span is not None:
            lo, hi = _ms(intent.span.start), _ms(intent.span.end)
            if intent.relation == "before":
                chosen = [mid for t, mid in on_arcs if t < lo]
            elif intent.relation == "after":
                chosen = [mid for t, mid in on_arcs if t >= hi]
            else:
                chosen = [mid for t, mid in on_arcs if lo <= t < max(hi, lo + 1)]
            return by_similarity(view, chosen, query.vector)[:depth]
        if intent.relation in ("before", "after") and intent.anchor:
            ranked = by_similarity(view, [mid for _, mid in on_arcs], query.vector)
            if not ranked:
                return []
            anchor_t = view.time_of(ranked[0])
            assert anchor_t is not None  # every memory on an arc has a time
            side = [(t, mid) for t, mid in on_arcs
                    if (t < anchor_t if intent.relation == "before" else t > anchor_t)]
            side.sort(key=lambda tm: abs(tm[0] - anchor_t))
            return [mid for _, mid in side[:depth]]
        if intent.relation in ("first", "last"):
            relevant = set(by_similarity(view, [mid for _, mid in on_arcs],
                                         query.vector)[:depth])
            ordered = [mid for _, mid in on_arcs if mid in relevant]
            return ordered if intent.relation == "first" else ordered[::-1]
        return []


def _ms(moment: datetime) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return to_epoch_ms(moment)


CHANNEL = Time()

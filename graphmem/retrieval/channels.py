"""Ranking channels over a namespace view. Each returns owned memory ids, best first.

- dense: cosine similarity of the query embedding.
- bm25: the in-process BM25 index of every wording a memory has.
- graph: memories that mention the entities the question names, most entities first,
  then by similarity.
- speaker: what the agents the question names said themselves, by similarity.
- profile: for preference questions, the asker's own statements of a preference (see
  `retrieval.preferences`), by similarity.
- time: for temporal questions, memories on the timelines (StoryArcs) of the named
  entities inside the time the question names, or before/after the anchor event.
"""

from __future__ import annotations

from datetime import timezone
from typing import AbstractSet, Sequence

import numpy as np

from graphmem.models import to_epoch_ms
from graphmem.retrieval.bm25 import BM25Index
from graphmem.retrieval.preferences import states_preference
from graphmem.view import MemoryRecord, NamespaceView, one_blas_thread


class TextIndex:
    """The text indexes that follow a namespace view: BM25 over every variant of a
    memory and the context it was deposited in, and the memories that state a
    preference (`preferences`)."""

    def __init__(self, view: NamespaceView) -> None:
        self.index = BM25Index()
        self.preferences: set[str] = set()
        self._indexed: dict[str, tuple[str, ...]] = {}
        view.on_change(self._update)

    def _update(self, record: MemoryRecord) -> None:
        words = tuple(record.variants or [record.text])
        indexed = words + ((record.context,) if record.context else ())
        if self._indexed.get(record.id) == indexed:
            return
        if record.id in self._indexed:
            self.index.remove(record.id)
        self.index.add(record.id, " ".join(indexed))
        self._indexed[record.id] = indexed
        if any(states_preference(w) for w in words):
            self.preferences.add(record.id)
        else:
            self.preferences.discard(record.id)

    def search(self, query: str, k: int, allowed: set[str]) -> list[str]:
        if not allowed:
            return []
        return [doc for doc, _ in self.index.search(query, k, allowed=allowed)]


def dense_ranking(view: NamespaceView, agent: str, qvec: np.ndarray, depth: int) -> list[str]:
    return [mid for mid, _ in view.nearest(qvec, depth, view.owned_rows(agent))]


def by_similarity(view: NamespaceView, ids: Sequence[str], qvec: np.ndarray) -> list[str]:
    """``ids`` ordered by cosine similarity to the query, best first; equal scores in the
    order the memories were stored (never the order of a set, which varies by process)."""
    if not ids:
        return []
    ids = sorted(ids, key=lambda mid: view.records[mid].row)
    with one_blas_thread():
        scores = np.stack([view.vector(i) for i in ids]) @ qvec
    order = np.argsort(-scores, kind="stable")
    return [ids[i] for i in order]


def profile_ranking(view: NamespaceView, agent: str, owned: AbstractSet[str],
                    preferences: AbstractSet[str], qvec: np.ndarray, depth: int) -> list[str]:
    """What ``agent`` said of its own tastes and constraints, most similar first."""
    stated = [mid for mid in preferences & owned
              if agent in view.records[mid].asserted_by and not view.records[mid].forgotten]
    return by_similarity(view, stated, qvec)[:depth]


def speaker_ranking(view: NamespaceView, agent: str, subjects: Sequence[str],
                    qvec: np.ndarray, depth: int) -> list[str]:
    """What the agents a question names said themselves, among what ``agent`` owns, most
    similar first: a question about someone is most often answered by their own words."""
    if not subjects:
        return []
    said = np.unique(np.concatenate([view.asserted_rows(s) for s in subjects]))
    rows = np.intersect1d(view.owned_rows(agent), said, assume_unique=True)
    return [mid for mid, _ in view.nearest(qvec, depth, rows)]


def graph_ranking(view: NamespaceView, owned: AbstractSet[str], entity_ids: Sequence[str],
                  qvec: np.ndarray, depth: int) -> list[str]:
    """Owned memories mentioning the question's entities: most entities, then similarity."""
    hits: dict[str, int] = {}
    for entity_id in entity_ids:
        for mid in view.mentioning(entity_id) & owned:
            if not view.records[mid].forgotten:
                hits[mid] = hits.get(mid, 0) + 1
    if not hits:
        return []
    ordered = by_similarity(view, list(hits), qvec)
    position = {mid: i for i, mid in enumerate(ordered)}
    return sorted(hits, key=lambda mid: (-hits[mid], position[mid]))[:depth]


def time_ranking(view: NamespaceView, owned: AbstractSet[str], entity_ids: Sequence[str], intent,
                 qvec: np.ndarray, depth: int) -> list[str]:
    """Memories placed in time by the question: inside its span, or before/after its
    anchor event, on the named entities' timelines (all owned memories if none named)."""
    if intent is None:
        return []
    on_arcs = [(t, mid) for e in entity_ids for t, mid in view.arc(e) if mid in owned]
    if not entity_ids:
        on_arcs = [(view.records[m].t, m) for m in owned if view.records[m].t is not None]
    on_arcs = sorted(set(on_arcs))
    relation = getattr(intent, "relation", None)
    span = getattr(intent, "span", None)
    if span is not None:
        lo, hi = _ms(span.start), _ms(span.end)
        if relation == "before":
            chosen = [mid for t, mid in on_arcs if t < lo]
        elif relation == "after":
            chosen = [mid for t, mid in on_arcs if t >= hi]
        else:
            chosen = [mid for t, mid in on_arcs if lo <= t < max(hi, lo + 1)]
        return by_similarity(view, chosen, qvec)[:depth]
    anchor = getattr(intent, "anchor", None)
    if relation in ("before", "after") and anchor:
        ranked = by_similarity(view, [mid for _, mid in on_arcs], qvec)
        if not ranked:
            return []
        anchor_t = view.records[ranked[0]].t
        side = [(t, mid) for t, mid in on_arcs
                if (t < anchor_t if relation == "before" else t > anchor_t)]
        side.sort(key=lambda tm: abs(tm[0] - anchor_t))
        return [mid for _, mid in side[:depth]]
    if relation in ("first", "last"):
        relevant = set(by_similarity(view, [mid for _, mid in on_arcs], qvec)[:depth])
        ordered = [mid for _, mid in on_arcs if mid in relevant]
        return ordered if relation == "first" else ordered[::-1]
    return []


def _ms(moment) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return to_epoch_ms(moment)

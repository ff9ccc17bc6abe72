"""The recall pipeline: owner-scoped channels, fusion, affiliated expansion, cut to k.

Every channel ranks only memories the asking agent owns. Affiliated neighbours of the
fused pool that the agent also owns are ranked in as one more channel, by their own
similarity to the query, and the fused list is cut to k — expansion never appends
unranked rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from graphmem.models import Hit, from_epoch_ms
from graphmem.view import NamespaceView


@dataclass
class Amplification:
    """Rows a recall returned after expansion versus before, summed over recalls."""

    recalls: int = 0
    before: int = 0
    after: int = 0
    pool_before: int = 0
    pool_after: int = 0

    def add(self, before: int, after: int, pool_before: int, pool_after: int) -> None:
        self.recalls += 1
        self.before += before
        self.after += after
        self.pool_before += pool_before
        self.pool_after += pool_after

    @property
    def mean(self) -> float | None:
        return None if self.before == 0 else self.after / self.before

    @property
    def pool_mean(self) -> float | None:
        return None if self.pool_before == 0 else self.pool_after / self.pool_before


@dataclass
class Ranked:
    """One channel's ranking: memory ids, best first."""

    channel: str
    ids: list[str] = field(default_factory=list)


def dense_channel(view: NamespaceView, agent: str, qvec: np.ndarray, depth: int) -> Ranked:
    """Owned memories by cosine similarity to the query."""
    return Ranked("dense", [mid for mid, _ in view.nearest(qvec, depth, view.owned_rows(agent))])


def affiliated_channel(view: NamespaceView, agent: str, qvec: np.ndarray,
                       pool: Sequence[str]) -> Ranked:
    """Owned AFFILIATED neighbours of the pool, not already in it, by similarity."""
    seen = set(pool)
    neighbours = {x for mid in pool for x in view.records[mid].affiliated
                  if x not in seen and view.owns(agent, x) and not view.records[x].forgotten}
    scored = sorted(neighbours, key=lambda x: (-float(view.vector(x) @ qvec), x))
    return Ranked("affiliated", scored)


def to_hit(view: NamespaceView, mid: str, score: float, ranks: dict[str, int],
           found_by: str) -> Hit:
    record = view.records[mid]
    return Hit(memory_id=mid, text=record.text, score=round(score, 6), channels=ranks,
               found_by=found_by, owners=sorted(record.owners),
               asserted_by=list(record.asserted_by), conflicts=sorted(record.conflicts),
               t=from_epoch_ms(record.t), variants=list(record.variants))


def recall_dense(view: NamespaceView, agent: str, qvec: np.ndarray, *, k: int,
                 expand: bool = True, depth: int | None = None,
                 amplification: Amplification | None = None) -> list[Hit]:
    """Vector-only recall with ranked affiliated expansion, cut to ``k``."""
    dense = dense_channel(view, agent, qvec, depth or k)
    pool = dense.ids[:k]
    extra = affiliated_channel(view, agent, qvec, pool).ids if expand else []
    scored = [(mid, float(view.vector(mid) @ qvec)) for mid in [*pool, *extra]]
    scored.sort(key=lambda kv: (-kv[1], kv[0]))
    dense_rank = {mid: i + 1 for i, mid in enumerate(dense.ids)}
    extra_rank = {mid: i + 1 for i, mid in enumerate(extra)}
    hits = []
    for mid, score in scored[:k]:
        ranks = {}
        if mid in dense_rank:
            ranks["dense"] = dense_rank[mid]
        if mid in extra_rank:
            ranks["affiliated"] = extra_rank[mid]
        hits.append(to_hit(view, mid, score, ranks, "dense" if mid in dense_rank else "affiliated"))
    if amplification is not None:
        amplification.add(len(pool), len(hits), len(pool), len(pool) + len(extra))
    return hits


Embed = Callable[[Sequence[str]], np.ndarray]

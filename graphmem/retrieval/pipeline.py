"""The recall pipeline: owner-scoped channels, fusion, affiliated expansion, cut to k.

Every channel ranks only memories the asking agent owns. Affiliated neighbours of the
fused pool that the agent also owns are ranked in as one more channel, by their own
similarity to the query, and the fused list is cut to k — expansion never appends
unranked rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Sequence

import numpy as np

from graphmem.models import Hit, from_epoch_ms, to_epoch_ms
from graphmem.retrieval.channels import CHANNELS, RankContext, neighbours_read
from graphmem.retrieval.config import SIMILARITY, RecallConfig, may_route, weights_for, weights_for_gate
from graphmem.retrieval.fusion import fuse_rankings, with_similarity
from graphmem.retrieval.query import Query
from graphmem.retrieval.route import route_features
from graphmem.retrieval.similarity import by_similarity, similarities
from graphmem.retrieval.text_index import TextIndex
from graphmem.retrieval.validity import order_by_validity, status_of
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


def affiliated_ranking(view: NamespaceView, agent: str, qvec: np.ndarray,
                       pool: Sequence[str], cap: int) -> list[str]:
    """Owned AFFILIATED neighbours of the pool, not already in it, by similarity; at most
    ``cap`` per pool member, so one busy memory cannot flood the result."""
    seen = set(pool)
    owned = view.owned_ids(agent)
    chosen: list[str] = []
    for mid in pool:
        near = [x for x in view.siblings(mid)
                if x not in seen and x in owned and not view.is_forgotten(x)]
        for x in by_similarity(view, near, qvec)[:cap]:
            seen.add(x)
            chosen.append(x)
    return by_similarity(view, chosen, qvec)


def to_hit(view: NamespaceView, agent: str, mid: str, score: float,
           ranks: dict[str, int]) -> Hit:
    record = view.records[mid]
    seen = sorted(c for c in record.conflicts if view.owns(agent, c))
    found_by = min(ranks, key=lambda c: (ranks[c], c)) if ranks else ""
    return Hit(memory_id=mid, text=record.text, score=round(score, 6), channels=ranks,
               found_by=found_by, owners=sorted(record.owners),
               asserted_by=list(record.asserted_by), conflicts=seen,
               conflicts_unseen=len(record.conflicts) - len(seen), status=status_of(record, view),
               valid_until=from_epoch_ms(record.valid_until),
               superseded_by=record.superseded_by,
               t=from_epoch_ms(record.t), variants=list(record.variants))


def run_channels(ctx: RankContext, query: Query, config: RecallConfig,
                 weights: dict[str, float]) -> dict[str, list[str]]:
    """The ranking of every channel the config turns on (weight 0 channels are skipped),
    run in registry order, each one's ranking left in ``ctx.ranked`` for the later ones
    (the second-hop channels read the first searches there); a channel already in
    ``ctx.ranked`` is not run again. The question's neighbours are searched once, as
    wide as the widest of them reads."""
    running = [name for name in CHANNELS if name in config.channels and weights.get(name, 0) > 0
               and name not in ctx.ranked]
    for name in running:
        ctx.widen(neighbours_read(CHANNELS[name], config.depth_for(name)))
    for name in running:
        ctx.ranked[name] = CHANNELS[name].rank(ctx, query, config.depth_for(name))
    return {name: ctx.ranked[name] for name in config.channels if name in ctx.ranked}


def recall_fused(view: NamespaceView, text_index: TextIndex, agent: str, query: Query,
                 config: RecallConfig, *, k: int,
                 amplification: Amplification | None = None) -> list[Hit]:
    """Channels fused by weighted RRF; affiliated neighbours ranked in; cut to ``k``."""
    query_class = query.kind if config.classify else None
    ctx = RankContext(view, text_index, agent, view.owned_ids(agent))

    def ranked(weights: dict[str, float]) -> dict[str, list[str]]:
        # forgotten (and deleted) memories are out of recall, whichever channel found them
        return {name: [m for m in ids if not view.is_forgotten(m)]
                for name, ids in run_channels(ctx, query, config, weights).items()}

    # ties go by storage order, not by the random memory ids: the same deposits rank
    # the same in every process
    def stored(mid: str) -> int:
        return view.row_of(mid)

    def similar(ids: list[str]) -> dict[str, float]:
        return similarities(view, ids, query.vector)

    # with a route gate: the question's channels and the gate's first, then the route
    # decides the weights, and the channels it adds run (one run only for the gate does
    # not vote)
    rankings = ranked(weights_for_gate(config, query_class))
    features = (route_features(config.route.features, rankings, similar)
                if config.route is not None and may_route(config, query_class) else None)
    weights = weights_for(config, query_class, features)
    if features is not None:
        rankings = {name: ids for name, ids in ranked(weights).items() if weights.get(name, 0) > 0}
    sim_weight = weights.get(SIMILARITY, 0.0)
    fused = with_similarity(fuse_rankings(rankings, weights, k=config.rrf_k, tie_break=stored),
                            sim_weight, similar, stored)
    pool = [hit.id for hit in fused[:k]]
    extra: list[str] = []
    if config.expand_affiliated and config.affiliated_weight > 0 and pool:
        extra = affiliated_ranking(view, agent, query.vector, pool, config.affiliated_cap)
        if extra:
            rankings["affiliated"] = extra
            weights = {**weights, "affiliated": config.affiliated_weight}
            fused = with_similarity(fuse_rankings(rankings, weights, k=config.rrf_k,
                                                  tie_break=stored),
                                    sim_weight, similar, stored)
    scored = {hit.id: hit for hit in fused}
    ordered = order_by_validity([hit.id for hit in fused[:k]], view, agent,
                                _span_ms(query))[:k]
    hits = [to_hit(view, agent, mid, scored[mid].score if mid in scored else 0.0,
                   dict(scored[mid].ranks) if mid in scored else {}) for mid in ordered]
    if amplification is not None:
        amplification.add(len(pool), len(hits), len(pool), len(pool) + len(extra))
    return hits


def _span_ms(query: Query) -> tuple[int, int] | None:
    """The time the question names, as epoch milliseconds, if any."""
    span = query.intent.span if query.intent is not None else None
    if span is None:
        return None
    return _ms(span.start), _ms(span.end)


def _ms(moment: datetime) -> int:
    return to_epoch_ms(moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc))

"""Recall captured once per question, then replayed offline under any configuration.

A selection protocol scores hundreds of configurations (a weight changed, a cue or a
channel removed) on the same ingestion. Re-running ``MemoryGraph.recall`` for each would
cost minutes per configuration; but the channels' rankings do not depend on the weights,
the classifier's cues or the fusion, only on the question and the store. So:

    capture_question(graph, ns, asker, text)  -> Captured: every channel's ranking at full
        depth, the cues that fired, each candidate's storage row and similarity to the
        query, and its owned affiliated neighbours
    replay(captured, config, cues=None)       -> memory ids, best first, exactly as
        ``recall`` would return them for that config (the affiliated pseudo-channel, the
        claims ordered by when each held and conflicting hits put in credible order
        included), with the classifier limited to ``cues`` if given

`replay` agrees with live recall id for id: `benchmarks/cv_protocol.py` checks this on
every question of its run for the default configuration and reports any disagreement.

May import graphmem.retrieval and graphmem.api; nothing in the core imports this module.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphmem.retrieval.classify import QueryClass, class_from_cues, cue_hits, speaks_of_asker
from graphmem.retrieval.config import (CHANNELS, HYBRID, SIMILARITY, RecallConfig, may_route,
                                      weights_for)
from graphmem.retrieval.fusion import fuse_rankings, with_similarity
from graphmem.retrieval.channels import RankContext
from graphmem.retrieval.classify import QueryKind
from graphmem.retrieval.pipeline import _span_ms, run_channels
from graphmem.retrieval.validity import order_by_validity
from graphmem.retrieval.query import parse_query
from graphmem.retrieval.route import route_features
from graphmem.retrieval.similarity import similarities
from graphmem.trust.bundle import credible_order

__all__ = ["Captured", "capture_question", "effective_weights", "replay", "replay_weighted",
           "route_features_of"]

#: every channel at weight 1 for every kind: the weights only decide whether a channel
#: (and the parsing it needs: time, named agents) runs, and every one must run once
_ONES = {channel: 1.0 for channel in CHANNELS}
_ALL_ON = HYBRID.model_copy(update={"channels": CHANNELS, "weights": dict(_ONES),
                                    "kind_weights": {kind: dict(_ONES)
                                                     for kind in HYBRID.kind_weights}})


@dataclass
class Captured:
    """What recall needs of one question, without the store."""
    text: str
    cues: tuple[tuple[str, str, float], ...]  # (kind, cue name, weight) that fired
    rankings: dict[str, list[str]]  # channel -> owned memory ids, best first
    rows: dict[str, int] = field(default_factory=dict)  # memory id -> storage row
    sims: dict[str, float] = field(default_factory=dict)  # memory id -> cosine to query
    affiliated: dict[str, list[str]] = field(default_factory=dict)  # id -> owned neighbours
    # what recall's last step (claims ordered by when each held) reads: the question's
    # time span, and each candidate's chain of replacements with the asker's ownership
    span: tuple[int, int] | None = None
    validity: dict[str, "_Claim"] = field(default_factory=dict)
    # for selection steps measured offline (coverage, diversity): each known memory's
    # vector (half precision) and mentioned entities, and the question's entities.
    # Captures made before these existed lack them (read with getattr).
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    mentions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    entities: tuple[str, ...] = ()
    # what recall's very last step (conflicting hits in credible order) reads of the
    # memories in a conflict or a chain of replacements; captures made before it lack it
    credibility: dict[str, "_Credible"] = field(default_factory=dict)

    def query_class(self, cues: Collection[str] | None = None) -> QueryClass:
        """The classifier's answer with only ``cues`` (names) counted; all if None."""
        hits = tuple((QueryKind(kind), name, weight) for kind, name, weight in self.cues
                     if cues is None or name in cues)
        return class_from_cues(hits, about_asker=speaks_of_asker(self.text))


def capture_question(graph, ns: str, asker: str, text: str, *, depth: int = 50) -> Captured:
    """Run every channel of recall for one question and keep what `replay` needs."""
    config = _ALL_ON.model_copy(update={"depth": depth})
    views = graph._views  # the handle's own views: what its recall reads
    policy = graph.trust_policy(ns=ns)  # what recall's last step reads confidences against
    view = views.synced(ns)
    parsed = parse_query(text, view=view, agent=asker, config=config,
                         embed_soon=graph.embedder.embed_soon,
                         agent_names=lambda: graph._writer.agent_names(ns, view.agents()))
    ctx = RankContext(view, views.text_index(ns), asker, view.owned_ids(asker))
    rankings = run_channels(ctx, parsed, config, _ONES)
    candidates = list(dict.fromkeys(m for ids in rankings.values() for m in ids))
    affiliated = {mid: sorted((x for x in view.records[mid].affiliated
                               if view.owns(asker, x) and not view.records[x].forgotten),
                              key=lambda x: view.records[x].row)
                  for mid in candidates}
    known = list(dict.fromkeys([*candidates, *(x for xs in affiliated.values() for x in xs)]))
    sims = similarities(view, known, parsed.vector)
    claims = _claims(view, asker, known)
    return Captured(text=text, cues=tuple((str(k), n, w) for k, n, w in cue_hits(text)),
                    rankings=rankings, rows={m: view.records[m].row for m in known},
                    sims=sims, affiliated={m: xs for m, xs in affiliated.items() if xs},
                    span=_span_ms(parsed), validity=claims,
                    vectors={m: view.vector(m).astype(np.float16) for m in known},
                    mentions={m: tuple(sorted(view.records[m].mentions)) for m in known
                              if view.records[m].mentions},
                    entities=tuple(parsed.entity_ids),
                    credibility=_credibility(view, asker, known, claims, policy.initial))


@dataclass(frozen=True)
class _Claim:
    """The fields of a memory record that `order_by_validity` reads."""

    t: int | None
    valid_until: int | None
    superseded_by: str | None
    forgotten: bool
    owned: bool


def _claims(view, asker: str, ids: list[str]) -> dict[str, _Claim]:
    """Every claim on a chain of replacements from ``ids`` (only those that have one)."""
    out: dict[str, _Claim] = {}
    todo = [m for m in ids if view.records[m].superseded_by is not None
            or view.records[m].valid_until is not None]
    while todo:
        mid = todo.pop()
        if mid in out or mid not in view.records:
            continue
        r = view.records[mid]
        out[mid] = _Claim(r.t, r.valid_until, r.superseded_by, r.forgotten,
                          view.owns(asker, mid))
        if r.superseded_by is not None:
            todo.append(r.superseded_by)
    return out


@dataclass(frozen=True)
class _Credible:
    """What `trust.bundle.credible_order` reads of a hit, as recall would return it."""

    memory_id: str
    conflicts: tuple[str, ...] = ()  # those the asker owns, as a hit lists them
    confidence: float | None = None
    quarantined: bool = False
    epistemic: str | None = None


def _credibility(view, asker: str, known: list[str], claims: dict[str, _Claim],
                 initial: float) -> dict[str, _Credible]:
    """The memories of ``known`` and ``claims`` that may rival another hit (a conflict
    the asker owns, or a place on a chain of replacements), as recall's hits carry them
    (a memory with no confidence of its own shows the namespace policy's initial one)."""
    out: dict[str, _Credible] = {}
    for mid in dict.fromkeys([*known, *claims]):
        r = view.records[mid]
        conflicts = tuple(sorted(c for c in r.conflicts if view.owns(asker, c)))
        if conflicts or mid in claims:
            out[mid] = _Credible(mid, conflicts,
                                 initial if r.confidence is None else r.confidence,
                                 bool(r.quarantined), r.epistemic)
    return out


class _ClaimView:
    """Enough of a NamespaceView for `order_by_validity` and `credible_order`, from a
    capture."""

    def __init__(self, claims: dict[str, _Claim]) -> None:
        self.records = _Records(claims)
        self._claims = claims

    def owns(self, agent: str, memory_id: str) -> bool:
        claim = self._claims.get(memory_id)
        return bool(claim and claim.owned)


class _Records(dict):
    """Claims by id; a memory with no replacement reads as a plain current claim."""

    def __missing__(self, key: str) -> _Claim:
        return _Claim(None, None, None, False, True)

    def get(self, key: str, default: object = None) -> _Claim:
        """Every memory reads as a claim (``default`` is never needed: every hit has a
        record in a view)."""
        return self[key]


def replay(captured: Captured, config: RecallConfig, *, k: int,
           cues: Collection[str] | None = None) -> list[str]:
    """The memory ids ``recall(..., k=k, config=config)`` returns, from the capture."""
    return replay_weighted(captured, effective_weights(captured, config, cues), config, k=k)


def effective_weights(captured: Captured, config: RecallConfig,
                      cues: Collection[str] | None = None) -> dict[str, float]:
    """The channel weights recall uses for this question under ``config`` and ``cues``:
    all that the ranking depends on besides the fusion settings (a cache key)."""
    query_class = captured.query_class(cues) if config.classify else None
    return weights_for(config, query_class, route_features_of(captured, config, query_class))


def route_features_of(captured: Captured, config: RecallConfig,
                      query_class: QueryClass | None,
                      names: Sequence[str] | None = None) -> dict[str, float] | None:
    """The route gate's features of a captured question (``names``, or the gate's own),
    as recall computes them (None when the gate is not asked: no gate, or the question
    is of its target kind)."""
    if config.route is None or not may_route(config, query_class):
        return None
    rankings = {c: captured.rankings.get(c, [])[:config.depth_for(c)] for c in config.channels}
    return route_features(config.route.features if names is None else names, rankings,
                          lambda ids: {m: captured.sims[m] for m in ids})


def replay_weighted(captured: Captured, weights: dict[str, float], config: RecallConfig, *,
                    k: int) -> list[str]:
    """`replay` once the weights are known."""
    rankings = {c: captured.rankings.get(c, [])[:config.depth_for(c)]
                for c in config.channels if weights.get(c, 0) > 0}
    row = captured.rows.__getitem__
    sim_weight = weights.get(SIMILARITY, 0.0)

    def similar(ids: list[str]) -> dict[str, float]:
        return {m: captured.sims[m] for m in ids}

    fused = with_similarity(fuse_rankings(rankings, weights, k=config.rrf_k, tie_break=row),
                            sim_weight, similar, row)
    pool = [hit.id for hit in fused[:k]]
    if config.expand_affiliated and config.affiliated_weight > 0 and pool:
        extra = _affiliated(captured, pool, config.affiliated_cap)
        if extra:
            rankings["affiliated"] = extra
            weights = {**weights, "affiliated": config.affiliated_weight}
            fused = with_similarity(fuse_rankings(rankings, weights, k=config.rrf_k,
                                                  tie_break=row), sim_weight, similar, row)
    ids = [hit.id for hit in fused[:k]]
    claims = getattr(captured, "validity", None)  # absent from captures made before it
    view: Any = _ClaimView(claims or {})  # the fields the last steps read, not a whole view
    if claims:
        ids = order_by_validity(ids, view, "", captured.span)[:k]
    credibility = getattr(captured, "credibility", None)  # likewise
    if not credibility:
        return ids
    hits: Any = [credibility.get(m) or _Credible(m) for m in ids]
    return [hit.memory_id for hit in credible_order(hits, view)]


def _by_similarity(captured: Captured, ids: list[str]) -> list[str]:
    ids = sorted(ids, key=captured.rows.__getitem__)
    scores = np.array([captured.sims[i] for i in ids], dtype=np.float32)
    return [ids[i] for i in np.argsort(-scores, kind="stable")]


def _affiliated(captured: Captured, pool: list[str], cap: int) -> list[str]:
    """pipeline.affiliated_ranking, over the captured neighbours."""
    seen = set(pool)
    chosen: list[str] = []
    for mid in pool:
        near = [x for x in captured.affiliated.get(mid, ()) if x not in seen]
        for x in _by_similarity(captured, near)[:cap]:
            seen.add(x)
            chosen.append(x)
    return _by_similarity(captured, chosen)

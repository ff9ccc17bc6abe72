"""Routing a question by how its channels agree, not by its words.

The classifier (`retrieval.classify`) reads cue words; a question asking for advice in
the form of a fact ("Where can I find ...?") goes to the factual kind, whose weights
trust BM25. When no memory holds an answer, BM25's first hits are whatever shares the
question's words, and they outvote the one memory that matters: what the asker said
they like. What the channels return tells that case apart better than the wording: the
nearest memory is far from the question, BM25's first hit is not among the nearest,
the nearest stands out from the next.

A `RouteGate` is a logistic model over such features of a question's rankings,
fitted on held-out-safe data (`graphmem.evaluation.route_fit`), never hand-set:

    route_features(names, rankings, similarity)   the features, by name
    RouteGate.fires(features)                     whether the question is routed
    routed(weights, target, share)                the weights mixed towards the target's

A routed question's weights become ``(1 - share) * its kind's + share * the target
kind's`` (`config.weights_for`), or of the gate's own table (`RouteGate.weights`) if it
has one. The features read only rankings and cosines, so that
replaying a captured question (`graphmem.evaluation.captured`) gives what live recall
gives.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from graphmem.retrieval.classify import QueryKind

__all__ = ["FEATURES", "RouteGate", "gate_channels", "route_features", "routed"]

#: how deep "among the first" looks when one channel's first hit is sought in another
AGREE_DEPTH = 10
#: features are rounded to this many decimals: the last bits of a dot product (which
#: depend on what computed it) must not decide a route
DECIMALS = 6

#: feature name -> (what it measures, the channels it reads)
FEATURES: dict[str, tuple[str, tuple[str, ...]]] = {
    "nearest": ("cosine of dense's first hit", ("dense",)),
    "nearest_margin": ("cosine of dense's first hit less its second's", ("dense",)),
    "lexical_nearest": ("cosine of BM25's first hit", ("bm25",)),
    "lexical_in_dense": ("BM25's first hit is among dense's first 10", ("dense", "bm25")),
    "dense_in_lexical": ("dense's first hit is among BM25's first 10", ("dense", "bm25")),
    "deposit_in_lexical": ("deposit's first hit is ranked by BM25 at all",
                           ("deposit", "bm25")),
    "deposit_is_dense": ("deposit's and dense's first hits are one memory",
                         ("deposit", "dense")),
    "profile_is_deposit": ("profile's and deposit's first hits are one memory",
                           ("profile", "deposit")),
    "profile_any": ("profile ranks some memory", ("profile",)),
}


def gate_channels(features: Sequence[str]) -> tuple[str, ...]:
    """The channels whose rankings ``features`` read, in first-use order."""
    return tuple(dict.fromkeys(c for name in features for c in FEATURES[name][1]))


def route_features(names: Sequence[str], rankings: Mapping[str, Sequence[str]],
                   similarity: Callable[[list[str]], Mapping[str, float]]) -> dict[str, float]:
    """The features ``names`` of one question, from its channels' ``rankings`` (best
    first) and ``similarity`` (ids -> cosine with the question)."""
    dense, bm25 = list(rankings.get("dense", ())), list(rankings.get("bm25", ()))
    deposit, profile = list(rankings.get("deposit", ())), list(rankings.get("profile", ()))
    wanted = [m for m in (*dense[:2], *bm25[:1]) if m is not None]
    cosine = dict(similarity(list(dict.fromkeys(wanted)))) if wanted else {}

    def first(ids: list[str]) -> str | None:
        return ids[0] if ids else None

    def cos(mid: str | None) -> float:
        return cosine.get(mid, 0.0) if mid is not None else 0.0

    def among(mid: str | None, ids: list[str]) -> float:
        return float(mid is not None and mid in ids)

    top = first(dense)
    second = dense[1] if len(dense) > 1 else None
    values = {
        "nearest": lambda: cos(top),
        "nearest_margin": lambda: cos(top) - cos(second) if second is not None else 0.0,
        "lexical_nearest": lambda: cos(first(bm25)),
        "lexical_in_dense": lambda: among(first(bm25), dense[:AGREE_DEPTH]),
        "dense_in_lexical": lambda: among(top, bm25[:AGREE_DEPTH]),
        "deposit_in_lexical": lambda: among(first(deposit), bm25),
        "deposit_is_dense": lambda: float(top is not None and first(deposit) == top),
        "profile_is_deposit": lambda: float(bool(profile) and first(profile) == first(deposit)),
        "profile_any": lambda: float(bool(profile)),
    }
    return {name: round(float(values[name]()), DECIMALS) for name in names}


class RouteGate(BaseModel):
    """A fitted logistic gate: a question whose probability is above 0.5 takes
    ``share`` of the ``target`` kind's weights. ``mean`` and ``scale`` standardise each
    feature before ``coef`` applies."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    share: float = Field(1.0, ge=0.0, le=1.0)
    target: QueryKind = QueryKind.PREFERENCE
    # the table a routed question moves towards, if not the target kind's own: the
    # target kind's table as it was when the gate was fitted, kept when that table is
    # changed afterwards for the questions of its kind alone
    weights: dict[str, float] | None = None

    @field_validator("features")
    @classmethod
    def _known(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(value) - set(FEATURES))
        if unknown:
            raise ValueError(f"unknown route features {unknown}; known: {sorted(FEATURES)}")
        return value

    @model_validator(mode="after")
    def _aligned(self) -> RouteGate:
        n = len(self.features)
        if not (len(self.mean) == len(self.scale) == len(self.coef) == n):
            raise ValueError("mean, scale and coef need one value per feature")
        if any(s <= 0 or not math.isfinite(s) for s in self.scale):
            raise ValueError("every scale must be finite and > 0")
        return self

    @property
    def channels(self) -> tuple[str, ...]:
        """The channels the gate reads."""
        return gate_channels(self.features)

    def probability(self, features: Mapping[str, float]) -> float:
        """The gate's probability that ``features`` belong to a routed question."""
        z = self.intercept + sum(c * (features[f] - m) / s for f, m, s, c in
                                 zip(self.features, self.mean, self.scale, self.coef))
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    def fires(self, features: Mapping[str, float]) -> bool:
        """True if the question is routed."""
        return self.share > 0 and self.probability(features) > 0.5


def routed(weights: Mapping[str, float], target: Mapping[str, float],
           share: float) -> dict[str, float]:
    """``weights`` moved ``share`` of the way to ``target`` (every key of either)."""
    keys = dict.fromkeys([*weights, *target])
    return {c: (1 - share) * weights.get(c, 0.0) + share * target.get(c, 0.0) for c in keys}

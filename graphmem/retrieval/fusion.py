"""Weighted reciprocal rank fusion of several rankings into one.

    score(d) = sum over channels c that ranked d of  w_c / (k + rank_c(d)),  rank from 1

A channel missing from `weights` counts with weight 1.0; a channel of weight 0 adds
nothing and its ranks are not reported. Within a channel an id listed twice keeps its
first (best) rank: the channels are ranked lists, and a repeated id is a caller's slip
that should not count twice. Ties in score go to the document with the best single
rank, then to the smaller id, so the fused order never depends on dict order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.errors import InvalidInput

__all__ = ["SIMILARITY_SCALE", "FusedHit", "fuse_rankings", "with_similarity"]

#: a similarity weight w adds w * cosine / SIMILARITY_SCALE: the fit's features are
#: 60 / (k + rank), so a weight of 1 on each puts a cosine on the scale of a first rank
SIMILARITY_SCALE = 60.0
#: cosines are compared at this many decimals, so that the last bits of a dot product
#: (which depend on what it was computed with) never decide an order
SIMILARITY_DECIMALS = 6


@dataclass(frozen=True)
class FusedHit:
    """One fused result: its id, fused score, and its rank (from 1) in each channel."""

    id: str
    score: float
    ranks: dict[str, int] = field(default_factory=dict)

    @property
    def best_rank(self) -> int:
        """The best rank this hit had in any contributing channel."""
        return min(self.ranks.values())


def fuse_rankings(
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float] | None = None,
    *,
    k: int = 60,
    limit: int | None = None,
    tie_break: Callable[[str], Any] | None = None,
) -> list[FusedHit]:
    """Fuse ranked id lists by weighted RRF; best first, at most `limit` hits.

    Equal scores go by best rank, then by ``tie_break(id)`` (default: the id itself).

    `rankings` maps a channel name to its ids, best first. `weights` maps channel names
    to non-negative finite weights (absent channels weigh 1.0; names that rank nothing
    are allowed, so one weight table serves every query). Raises InvalidInput for
    k <= 0, a negative or non-finite weight, or a negative limit.
    """
    _check_arguments(weights, k, limit)
    weights = weights or {}
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for channel in sorted(rankings):
        weight = weights.get(channel, 1.0)
        if weight == 0:
            continue
        for rank, doc_id in enumerate(_first_occurrences(rankings[channel]), start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (k + rank)
            ranks.setdefault(doc_id, {})[channel] = rank
    hits = [FusedHit(doc_id, score, ranks[doc_id]) for doc_id, score in scores.items()]
    last = tie_break or (lambda doc_id: doc_id)
    hits.sort(key=lambda hit: (-hit.score, hit.best_rank, last(hit.id)))
    return hits if limit is None else hits[:limit]


def _first_occurrences(ids: Sequence[str]) -> list[str]:
    """The ids in order, each kept at its first position."""
    seen: set[str] = set()
    unique = []
    for doc_id in ids:
        if doc_id not in seen:
            seen.add(doc_id)
            unique.append(doc_id)
    return unique


def _check_arguments(weights: Mapping[str, float] | None, k: int, limit: int | None) -> None:
    if isinstance(k, bool) or not isinstance(k, (int, float)) or not k > 0 or not math.isfinite(k):
        raise InvalidInput(f"RRF k must be a positive number (60 is usual), got {k!r}")
    if limit is not None and limit < 0:
        raise InvalidInput(f"limit must be >= 0 or None, got {limit!r}")
    for channel, weight in (weights or {}).items():
        if not math.isfinite(weight) or weight < 0:
            raise InvalidInput(
                f"channel weight must be a finite number >= 0, got {weight!r} for {channel!r}"
            )


def with_similarity(
    hits: Sequence[FusedHit],
    weight: float,
    similarity: Callable[[list[str]], Mapping[str, float]],
    tie_break: Callable[[str], Any] | None = None,
) -> list[FusedHit]:
    """``hits`` rescored with ``weight * cosine / SIMILARITY_SCALE`` added, best first
    (ties as in `fuse_rankings`); unchanged when ``weight`` is 0. ``similarity`` maps the
    hits' ids to their cosine with the question."""
    if weight == 0 or not hits:
        return list(hits)
    sims = similarity([h.id for h in hits])
    scale = weight / SIMILARITY_SCALE
    out = [FusedHit(h.id, h.score + scale * round(sims[h.id], SIMILARITY_DECIMALS), h.ranks)
           for h in hits]
    last = tie_break or (lambda doc_id: doc_id)
    out.sort(key=lambda hit: (-hit.score, hit.best_rank, last(hit.id)))
    return out

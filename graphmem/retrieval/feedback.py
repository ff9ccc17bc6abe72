"""Second-hop search: what the first hits of a question say that the question does not.

A list question's answers are scattered and rarely share words with it ("What activities
does Melanie partake in?" against "I'm off to pottery class"); the first hits often do
("...pottery and painting are my favourite things to do"). So recall may search again
from them (pseudo-relevance feedback), as channels of their own whose weight the fit
decides per question kind:

    first_hits(ctx, query, n)          the question's first hits: dense and BM25 (their
                                       first FIRST_DEPTH each) fused by plain RRF
    expansion_terms(ctx, query, hits)  the words of the hits the question lacks, by how
                                       rare they are among the asker's memories
    centroid(ctx, query, hits)         the question's vector moved towards the hits'

May import graphmem.retrieval (its channels, bm25, fusion) and graphmem.view.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from graphmem.retrieval.fusion import fuse_rankings
from graphmem.retrieval.tokenize import tokenize

if TYPE_CHECKING:
    from graphmem.retrieval.channels.base import RankContext
    from graphmem.retrieval.query import Query

#: how deep the first search looks, and how many of its hits seed the second
FIRST_DEPTH = 10
SEEDS = 3
#: words taken from the seeds (more drift towards the seeds' other topics)
TERMS = 8
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def first_hits(ctx: RankContext, query: Query, n: int = SEEDS) -> list[str]:
    """The ``n`` best of dense and BM25 (their first ``FIRST_DEPTH``) fused with equal
    weights (ties by storage row). The pipeline's own dense and BM25 rankings are used
    when it ran them at least that deep (``ctx.ranked``); the fused list is kept in
    ``ctx.memo`` for the next channel that asks."""
    key = f"first_hits:{n}"
    if key not in ctx.memo:
        ctx.memo[key] = _first_hits(ctx, query, n)
    return list(ctx.memo[key])  # type: ignore[call-overload]


def _first_hits(ctx: RankContext, query: Query, n: int) -> list[str]:
    from graphmem.retrieval.channels import CHANNELS

    rankings = {}
    for name in ("dense", "bm25"):
        ran = ctx.ranked.get(name)
        rankings[name] = (ran[:FIRST_DEPTH] if ran is not None and len(ran) >= FIRST_DEPTH
                          else CHANNELS[name].rank(ctx, query, FIRST_DEPTH))
    records = ctx.view.records
    rankings = {c: [m for m in ids if not records[m].forgotten] for c, ids in rankings.items()}
    fused = fuse_rankings(rankings, {"dense": 1.0, "bm25": 1.0}, k=10,
                          tie_break=lambda mid: records[mid].row)
    return [hit.id for hit in fused[:n]]


def expansion_terms(ctx: RankContext, query: Query, hits: list[str],
                    n: int = TERMS) -> list[str]:
    """Up to ``n`` words of the hits' wordings that the question lacks, rarest among
    the memories first; a word only one memory has would find nothing new, so it is
    left out. Returns surface words (the index stems them again)."""
    index = ctx.text_index.words
    asked = set(tokenize(query.text))
    score: dict[str, float] = {}
    surface: dict[str, str] = {}
    for mid in hits:
        record = ctx.view.records[mid]
        seen: set[str] = set()
        for word in _WORD.findall(" ".join(record.variants or [record.text])):
            stems = tokenize(word)
            if len(stems) != 1 or stems[0] in asked or stems[0] in seen:
                continue
            stem = stems[0]
            df = index.document_frequency(stem)
            if df < 2:
                continue
            seen.add(stem)
            surface.setdefault(stem, word.lower())
            score[stem] = score.get(stem, 0.0) + index.idf(stem)
    best = sorted(score, key=lambda s: (-score[s], s))[:n]
    return [surface[s] for s in best]


def centroid(ctx: RankContext, query: Query, hits: list[str]) -> np.ndarray:
    """The question's vector plus the hits' mean, normalised (Rocchio, equal parts)."""
    if not hits:
        return query.vector
    mean = np.mean(ctx.view.vectors(hits), axis=0)
    moved = np.asarray(query.vector, dtype=np.float32) + mean.astype(np.float32)
    norm = float(np.linalg.norm(moved))
    return moved / norm if norm > 0 else query.vector

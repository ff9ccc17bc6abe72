"""Retrieval and answer metrics of the evaluation harness: pure functions, no I/O.

Ranking a memory system at turn level:

    rank_turns(memory ids, turns_of_memory, k)   memories best first -> turn ids best first
    rank_sessions(turn ids, session_of, k)       turn ids best first -> session ids best first

A recalled memory stands for every turn that produced it (a merge makes one memory out of
several turns; a turn split into atoms makes several memories). A turn is ranked at the
best rank of any memory it produced; each turn appears once.

Scores of one ranked list against a set of relevant ids (all in [0, 1]):

    recall_all_at_k   1 if every relevant id is in the top k, else 0
    recall_any_at_k   1 if at least one relevant id is in the top k, else 0
    ndcg_any_at_k     binary-relevance NDCG: sum of 1/log2(rank + 1) over the relevant ids
                      in the top k, divided by the same sum for a perfect ranking of
                      min(#relevant, k) relevant ids

Aggregation: `mean`, `percentile` (linear interpolation, as numpy's default) and
`summarise_scores` (per category and overall means of per-question score dicts).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["mean", "ndcg_any_at_k", "percentile", "rank_sessions", "rank_turns",
           "recall_all_at_k", "recall_any_at_k", "score_ranking", "summarise_scores"]


def rank_turns(memory_ids: Sequence[str], turns_of_memory: Mapping[str, Sequence[str]],
               k: int | None = None) -> list[str]:
    """Turn ids in order of the best rank of any memory they produced, cut to ``k``.

    Memories that no turn produced (unknown ids) are passed over.
    """
    ranked: list[str] = []
    seen: set[str] = set()
    for memory_id in memory_ids:
        for turn_id in turns_of_memory.get(memory_id, ()):
            if turn_id not in seen:
                seen.add(turn_id)
                ranked.append(turn_id)
    return ranked if k is None else ranked[:k]


def rank_sessions(turn_ids: Sequence[str], session_of: Mapping[str, str],
                  k: int | None = None) -> list[str]:
    """Session ids in order of their best-ranked turn, each once, cut to ``k``."""
    ranked: list[str] = []
    for turn_id in turn_ids:
        session = session_of.get(turn_id)
        if session is not None and session not in ranked:
            ranked.append(session)
    return ranked if k is None else ranked[:k]


def recall_all_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """1.0 when every relevant id is among the first ``k`` ranked ids, else 0.0."""
    wanted = set(relevant)
    if not wanted:
        raise ValueError("recall needs at least one relevant id")
    return 1.0 if wanted <= set(ranked[:k]) else 0.0


def recall_any_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """1.0 when some relevant id is among the first ``k`` ranked ids, else 0.0."""
    wanted = set(relevant)
    if not wanted:
        raise ValueError("recall needs at least one relevant id")
    return 1.0 if wanted & set(ranked[:k]) else 0.0


def ndcg_any_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """Binary-relevance NDCG of the first ``k`` ranked ids (see the module docstring)."""
    wanted = set(relevant)
    if not wanted:
        raise ValueError("NDCG needs at least one relevant id")
    seen: set[str] = set()
    dcg = 0.0
    for rank, item in enumerate(ranked[:k], start=1):
        if item in wanted and item not in seen:
            seen.add(item)
            dcg += 1.0 / math.log2(rank + 1)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(wanted), k) + 1))
    return dcg / ideal


METRICS = {"recall_all": recall_all_at_k, "recall_any": recall_any_at_k,
           "ndcg_any": ndcg_any_at_k}


def score_ranking(ranked: Sequence[str], relevant: Iterable[str], ks: Iterable[int], *,
                  metrics: Iterable[str] = ("recall_all", "recall_any", "ndcg_any"),
                  prefix: str = "") -> dict[str, float]:
    """``{"<prefix>recall_all@5": x, ...}`` for every metric and k."""
    relevant = tuple(relevant)
    return {f"{prefix}{name}@{k}": METRICS[name](ranked, relevant, k)
            for name in metrics for k in ks}


def mean(values: Iterable[float]) -> float | None:
    """Arithmetic mean, or None for no values."""
    values = list(values)
    return sum(values) / len(values) if values else None


def percentile(values: Iterable[float], q: float) -> float | None:
    """The ``q``-th percentile (0..100) with linear interpolation; None for no values."""
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be within 0..100, got {q}")
    ordered = sorted(values)
    if not ordered:
        return None
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarise_scores(rows: Iterable[tuple[str, Mapping[str, float | None]]]
                     ) -> dict[str, dict]:
    """Means of per-question scores, overall and by category.

    ``rows`` are (category, {metric: value or None}); None values (e.g. a failed LLM
    call) are left out of that metric's mean. Returns ``{"overall": {...}, "by_category":
    {category: {...}}, "counts": {category: n}}``; each metric dict also holds ``"n"``.
    """
    overall: dict[str, list[float]] = defaultdict(list)
    by_category: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    counts: dict[str, int] = defaultdict(int)
    for category, scores in rows:
        counts[category] += 1
        for name, value in scores.items():
            if value is not None:
                overall[name].append(float(value))
                by_category[category][name].append(float(value))
    total = sum(counts.values())
    return {
        "overall": {"n": total, **{name: mean(vals) for name, vals in sorted(overall.items())}},
        "by_category": {
            cat: {"n": counts[cat], **{name: mean(vals) for name, vals in sorted(by_category[cat].items())}}
            for cat in sorted(counts, key=_category_key)
        },
    }


def _category_key(category: str) -> tuple[int, str]:
    return (int(category), "") if category.isdigit() else (10**9, category)

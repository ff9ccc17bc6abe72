"""Intelligent Decay: each memory's utility S = αR + βE + γU, and the maintenance that
consolidates or prunes what falls below the namespace's threshold.

    R  recency: exp(-ln 2 · age / half-life), age since the system learned it
    E  relevance: cosine similarity to the current task of the memory's owners (the best
       owner's; ``set_task``), 0 when no owner has a task
    U  human utility: 1 pinned, 0 forgotten, 0.5 otherwise

Maintenance never touches pinned memories. Among the rest, those under the threshold are
grouped with the related ones under it — linked by AFFILIATED (one deposit, one episode)
and alike (cosine ≥ ``cluster_similarity``): a group of two or more episodic memories
becomes one semantic fact (``consolidate``), a memory alone is forgotten (pruned out of
recall, kept for audit). Following links keeps it linear in the store's size. Every act is logged as
done by ``maintenance``. Off unless someone runs it: benchmark runs freeze memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from graphmem.view import MemoryRecord, NamespaceView

DAY_MS = 24 * 60 * 60 * 1000
MAINTENANCE = "maintenance"  # the actor maintenance's acts are logged under


class DecaySettings(BaseModel):
    """A namespace's decay parameters (stored on its Namespace node)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    alpha: float = Field(0.4, ge=0)  # weight of recency
    beta: float = Field(0.3, ge=0)  # weight of relevance to the task
    gamma: float = Field(0.3, ge=0)  # weight of human utility
    half_life_days: float = Field(30.0, gt=0)
    threshold: float = Field(0.3, ge=0, le=1)
    cluster_similarity: float = Field(0.6, ge=0, le=1)


@dataclass(frozen=True)
class Utility:
    """One memory's score and its terms."""

    s: float
    r: float
    e: float
    u: float

    def as_dict(self) -> dict[str, float]:
        return {"S": round(self.s, 4), "R": round(self.r, 4), "E": round(self.e, 4),
                "U": round(self.u, 4)}


def human_utility(record: MemoryRecord) -> float:
    return 1.0 if record.pinned else 0.0 if record.forgotten else 0.5


def recency(record: MemoryRecord, now_ms: int, half_life_days: float) -> float:
    learned = record.recorded_at if record.recorded_at is not None else now_ms
    age_days = max(0, now_ms - learned) / DAY_MS
    return math.exp(-math.log(2) * age_days / half_life_days)


def utilities(view: NamespaceView, ids: list[str], task_vectors: dict[str, np.ndarray],
              settings: DecaySettings, now_ms: int) -> dict[str, Utility]:
    """The utility of each memory in ``ids`` (vectorised over the relevance term)."""
    out = {}
    for mid in ids:
        record = view.records[mid]
        tasks = [task_vectors[a] for a in record.owners if a in task_vectors]
        e = max(0.0, float(max(view.vector(mid) @ t for t in tasks))) if tasks else 0.0
        r = recency(record, now_ms, settings.half_life_days)
        u = human_utility(record)
        out[mid] = Utility(settings.alpha * r + settings.beta * e + settings.gamma * u, r, e, u)
    return out


@dataclass
class MaintenanceReport:
    """What one ``maintain`` run did."""

    scored: int = 0
    below_threshold: int = 0
    pinned_kept: int = 0
    consolidated: list[dict] = field(default_factory=list)  # {fact, sources}
    pruned: list[str] = field(default_factory=list)


def plan_maintenance(view: NamespaceView, scores: dict[str, Utility],
                     settings: DecaySettings) -> tuple[list[list[str]], list[str]]:
    """Groups to consolidate and memories to prune, from the scores (pinned and
    forgotten memories are never chosen)."""
    low = [m for m, u in scores.items() if u.s < settings.threshold
           and not view.records[m].pinned and not view.records[m].forgotten]
    low.sort(key=lambda m: view.records[m].row)
    left = set(low)
    groups, pruned = [], []
    for mid in low:
        if mid not in left:
            continue
        left.discard(mid)
        group, frontier = [mid], [mid]
        while frontier:  # related: linked and alike, all under the threshold
            current = frontier.pop()
            for other in sorted(view.records[current].affiliated & left,
                                key=lambda m: view.records[m].row):
                if float(view.vector(current) @ view.vector(other)) >= \
                        settings.cluster_similarity:
                    left.discard(other)
                    group.append(other)
                    frontier.append(other)
        if len(group) > 1 and all(view.records[m].kind == "episodic" for m in group):
            groups.append(group)
        else:
            pruned.extend(group)
    return groups, pruned

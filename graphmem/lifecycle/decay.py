"""Intelligent Decay: each memory's utility S = αR + βE + γU, and the maintenance that
consolidates or prunes what falls below the namespace's threshold.

    R  recency: exp(-ln 2 · age / half-life), age since the system learned it; a salient
       memory's half-life is longer, by (1 + salience). ``clock`` says on which clock:
       "recorded" (default) the wall clock of the write (``recorded_at``); "deposit" the
       deposits' own times (``at``: when its owners first learned it), with "now" the
       newest deposit unless given, so that a replayed history decays as it happened
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
from typing import Literal

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
    #: an episodic memory owned by this many agents, current and undisputed, is promoted
    #: to a semantic fact (frequent, high-confidence)
    promote_owners: int = Field(3, ge=2)
    #: λ: how far one piece of retrieved evidence moves a semantic fact's strength
    reconsolidation_rate: float = Field(0.2, gt=0, le=1)
    #: per-kind budgets (episodic, semantic, procedural); beyond one, the lowest-utility
    #: memories of that kind are pruned. Empty: no budgets (PAPER_CAPACITIES: the paper's)
    capacities: dict[str, int] = Field(default_factory=dict)
    #: the clock recency is measured on (module docstring): "recorded" or "deposit"
    clock: Literal["recorded", "deposit"] = "recorded"


#: the brain-inspired paper's component capacities, for the kinds graphmem stores
PAPER_CAPACITIES = {"episodic": 20_000, "semantic": 70_000, "procedural": 500}


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


def recency(record: MemoryRecord, now_ms: int, half_life_days: float,
            learned_at: int | None = None) -> float:
    """R of one memory; ``learned_at`` (the deposit clock's time) replaces the wall
    clock's ``recorded_at`` when given."""
    learned = learned_at if learned_at is not None else \
        record.recorded_at if record.recorded_at is not None else now_ms
    age_days = max(0, now_ms - learned) / DAY_MS
    return math.exp(-math.log(2) * age_days / (half_life_days * (1 + record.salience)))


def utilities(view: NamespaceView, ids: list[str], task_vectors: dict[str, np.ndarray],
              settings: DecaySettings, now_ms: int,
              learned: dict[str, int] | None = None) -> dict[str, Utility]:
    """The utility of each memory in ``ids``; ``learned`` (memory -> when it was first
    learned on the deposit clock) is read when ``settings.clock`` is "deposit"."""
    learned = learned if settings.clock == "deposit" and learned else {}
    relevance = _relevance(view, ids, task_vectors)
    out = {}
    for mid, e in zip(ids, relevance):
        record = view.records[mid]
        r = recency(record, now_ms, settings.half_life_days, learned.get(mid))
        u = human_utility(record)
        out[mid] = Utility(settings.alpha * r + settings.beta * e + settings.gamma * u, r, e,
                           u)
    return out


def _relevance(view: NamespaceView, ids: list[str],
               task_vectors: dict[str, np.ndarray]) -> list[float]:
    """E of each memory: the best cosine to the task of one of its owners (0 without
    one), as one matrix product over all memories and tasks."""
    if not ids or not task_vectors:
        return [0.0] * len(ids)
    agents = list(task_vectors)
    tasks = np.stack([task_vectors[a] for a in agents]).astype(np.float32)
    sims = view.vectors(ids) @ tasks.T  # memories x tasks
    column = {a: i for i, a in enumerate(agents)}
    out = []
    for row, mid in enumerate(ids):
        mine = [column[a] for a in view.records[mid].owners if a in column]
        out.append(max(0.0, float(sims[row, mine].max())) if mine else 0.0)
    return out


@dataclass
class MaintenanceReport:
    """What one ``maintain`` run did."""

    scored: int = 0
    below_threshold: int = 0
    pinned_kept: int = 0
    consolidated: list[dict] = field(default_factory=list)  # {fact, sources}
    pruned: list[str] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)
    over_capacity: list[str] = field(default_factory=list)
    reconsolidated: dict[str, float] = field(default_factory=dict)  # fact -> strength
    #: memories changed by another writer after the pass read them: left for the next
    changed: list[str] = field(default_factory=list)


def plan_maintenance(view: NamespaceView, scores: dict[str, Utility],
                     settings: DecaySettings) -> tuple[list[list[str]], list[str]]:
    """Groups to consolidate and memories to prune, from the scores (pinned and
    forgotten memories are never chosen)."""
    # semantic facts are what consolidation keeps: only capacities prune them
    low = [m for m, u in scores.items() if u.s < settings.threshold
           and not view.records[m].pinned and not view.records[m].forgotten
           and view.records[m].kind != "semantic"]
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


def promotions(view: NamespaceView, settings: DecaySettings) -> list[str]:
    """Episodic memories known to many agents, current and undisputed: promoted."""
    return [m for m, r in view.records.items()
            if r.kind == "episodic" and not r.forgotten and len(r.owners) >=
            settings.promote_owners and r.valid_until is None and not r.conflicts]


def over_capacity(view: NamespaceView, scores: dict[str, Utility],
                  settings: DecaySettings) -> list[str]:
    """Beyond each kind's budget, its lowest-utility memories (pinned ones never)."""
    chosen: list[str] = []
    for kind, budget in settings.capacities.items():
        live = [m for m in scores if view.records[m].kind == kind]
        excess = len(live) - budget
        if excess > 0:
            prunable = sorted((m for m in live if not view.records[m].pinned),
                              key=lambda m: (scores[m].s, view.records[m].row))
            chosen.extend(prunable[:excess])
    return chosen


def reconsolidate(strength: float, evidence: list[float], rate: float) -> float:
    """A semantic fact's strength after each piece of evidence in turn (1 supports it,
    0 contradicts it): an exponential moving average that damps a single noisy one."""
    for value in evidence:
        strength = (1 - rate) * strength + rate * value
    return strength


def evidence_for(view: NamespaceView, fact: str, since: int,
                 settings: DecaySettings) -> list[float]:
    """Episodic memories the fact's owners learned after ``since``, in order: 1 for one
    alike (cosine >= cluster_similarity), 0 for one that contradicts it."""
    record = view.records[fact]
    # the nearest memories and the contradicting ones: a scan per fact, not a pair loop
    candidates = {m for m, _ in view.nearest(view.vector(fact), 50)} | record.conflicts
    found = []
    for mid in candidates:
        other = view.records[mid]
        if mid == fact or other.kind != "episodic" or other.forgotten:
            continue
        if (other.recorded_at or 0) <= since or not (other.owners.keys() & record.owners.keys()):
            continue
        if mid in record.conflicts:
            found.append(((other.recorded_at or 0), 0.0))
        elif float(view.vector(mid) @ view.vector(fact)) >= settings.cluster_similarity:
            found.append(((other.recorded_at or 0), 1.0))
    return [value for _, value in sorted(found)]

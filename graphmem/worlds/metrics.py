"""Structure of a run's memory, round by round.

For the entries the simulation wrote (seeded history apart): how many, the share owned
by more than one agent, the share linked to another memory, the deepest merge (most
owners of one entry), each agent's owned count; for the whole namespace the same from
``MemoryGraph.stats``; and the recall amplification (rows returned per row asked).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from graphmem.worlds.memory import WorldMemory


@dataclass
class RoundRow:
    """Structure after one round (cumulative)."""

    round: int
    entries_written: int
    multi_owner_share: float
    linked_share: float
    deepest_merge: int
    store_entries: int
    seeded_entries: int
    recalls: int
    recall_amplification: float
    owned: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def structure_of(memory: WorldMemory, ids: set[str]) -> list[dict]:
    """Owners and link counts of the listed entries (forgotten ones left out)."""
    if not ids:
        return []
    return memory.graph.query("worlds/structure_of", {"ns": memory.ns, "ids": sorted(ids)})


def round_row(memory: WorldMemory, number: int, *, seconds: float = 0.0) -> RoundRow:
    """The structure of ``memory`` after round ``number``."""
    rows = structure_of(memory, memory.sim_ids)
    n = len(rows)
    owned: Counter[str] = Counter()
    for r in rows:
        owned.update(r["owners"])
    stats = memory.graph.stats(ns=memory.ns)
    asked = len(memory.recalled_rows) * memory.recall_k
    return RoundRow(
        round=number, entries_written=n,
        multi_owner_share=round4(sum(len(r["owners"]) > 1 for r in rows) / n) if n else 0.0,
        linked_share=round4(sum(r["links"] > 0 for r in rows) / n) if n else 0.0,
        deepest_merge=max((len(r["owners"]) for r in rows), default=0),
        store_entries=stats["entries"], seeded_entries=len(memory.seeded_ids),
        recalls=len(memory.recalled_rows),
        recall_amplification=round4(sum(memory.recalled_rows) / asked) if asked else 0.0,
        owned=dict(sorted(owned.items())), seconds=round(seconds, 2))


def round4(x: float) -> float:
    return round(x, 4)


def overlap_by_conversation(memory: WorldMemory, conversed: set[frozenset[str]],
                            agents: list[str]) -> dict[str, float]:
    """Mean Jaccard overlap of owned simulation entries, for pairs of characters that
    exchanged messages and pairs that did not (§5.5 of the paper)."""
    owned: dict[str, set[str]] = {a: set() for a in agents}
    for r in structure_of(memory, memory.sim_ids):
        for o in r["owners"]:
            if o in owned:
                owned[o].add(r["id"])
    talk: list[float] = []
    silent: list[float] = []
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            union = owned[a] | owned[b]
            if not union:
                continue
            j = len(owned[a] & owned[b]) / len(union)
            (talk if frozenset((a, b)) in conversed else silent).append(j)
    return {"conversing_pairs": len(talk), "conversing_overlap": mean(talk),
            "silent_pairs": len(silent), "silent_overlap": mean(silent)}


def mean(xs: list[float]) -> float:
    return round4(sum(xs) / len(xs)) if xs else 0.0

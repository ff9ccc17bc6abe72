"""What sedimentation produces for any world: the script of held-out beats the
deterministic policy follows, the world ready to run, and two helpers every source uses
(rounds allotted to parts of the source; a map from who shares the places)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from graphmem.worlds.model import Entity, WorldState


@dataclass(frozen=True)
class Beat:
    """One held-out speech the policy will have its speaker say, in ``round``."""

    round: int
    speech: str
    speaker: str
    listeners: tuple[str, ...]
    text: str
    place: str


@dataclass
class Sediment:
    """A world ready to run: its state, the seeded deposits and the policy's script."""

    world: WorldState
    seed: list[dict[str, Any]]
    script: list[Beat] = field(default_factory=list)


def allot(sizes: list[int], total: int) -> list[int]:
    """Split ``total`` rounds over parts in proportion to ``sizes``, at least one each."""
    spare = total - len(sizes)
    exact = [spare * s / sum(sizes) for s in sizes]
    shares = [1 + math.floor(x) for x in exact]
    order = sorted(range(len(sizes)), key=lambda i: (-(exact[i] - math.floor(exact[i])), i))
    for i in order[: total - sum(shares)]:
        shares[i] += 1
    return shares


def distances(casts: dict[str, set[str]]) -> dict[str, dict[str, int]]:
    """Scenes sharing their people are near: ``1 + round(3 (1 - Jaccard))``."""
    out: dict[str, dict[str, int]] = {}
    for a, ca in casts.items():
        out[a] = {}
        for b, cb in casts.items():
            if a != b:
                union = ca | cb
                j = len(ca & cb) / len(union) if union else 0.0
                out[a][b] = 1 + round(3 * (1 - j))
    return out


def carrier_deposits(entities: dict[str, Entity]) -> list[dict[str, Any]]:
    """Each information carrier owns a memory of the text it holds."""
    return [{"agent": e.id, "text": e.text, "place": e.place}
            for e in sorted(entities.values(), key=lambda e: e.id)
            if e.kind == "carrier" and e.text.strip()]

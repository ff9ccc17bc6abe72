"""A character's short-term state: goal stack, status register, action–result cache.

The cache keeps the last ``capacity`` (20) action–result pairs a character saw. When it
is full, one pair is evicted:

==========  =====================================================================
policy      evicts
==========  =====================================================================
fifo        the oldest pair
relevance   the pair least relevant to the current goal (word overlap), oldest first
hybrid      the lowest ``alpha * recency + (1 - alpha) * relevance`` (alpha = 0.5)
==========  =====================================================================

Recency is the pair's position scaled to [0, 1] (newest 1); relevance is the Jaccard
overlap of the pair's words with the top goal's, so eviction needs no model and is
deterministic. With no goal, relevance and hybrid fall back to the oldest pair.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from graphmem.errors import InvalidInput

EVICTIONS = ("fifo", "relevance", "hybrid")
CACHE_SIZE = 20
HYBRID_ALPHA = 0.5
_WORD = re.compile(r"\w+")


def words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def relevance(text: str, goal: str | None) -> float:
    """Jaccard overlap of the words of ``text`` and ``goal`` (0 with no goal)."""
    if not goal:
        return 0.0
    a, b = words(text), words(goal)
    return len(a & b) / len(a | b) if a | b else 0.0


@dataclass
class CachedPair:
    """One action and what came of it, as the character will read it."""

    round: int
    action: str
    result: str

    @property
    def text(self) -> str:
        return f"{self.action} -> {self.result}"


@dataclass
class ShortTerm:
    """Goal stack, status register and action–result cache of one character."""

    goals: list[str] = field(default_factory=list)
    status: dict[str, str] = field(default_factory=dict)
    cache: list[CachedPair] = field(default_factory=list)
    eviction: str = "fifo"
    capacity: int = CACHE_SIZE
    alpha: float = HYBRID_ALPHA

    def __post_init__(self) -> None:
        if self.eviction not in EVICTIONS:
            raise InvalidInput(f"unknown eviction {self.eviction!r}; choose one of "
                               f"{', '.join(EVICTIONS)}")
        if self.capacity < 1:
            raise InvalidInput(f"cache capacity must be positive, got {self.capacity}")

    @property
    def goal(self) -> str | None:
        """The goal on top of the stack."""
        return self.goals[-1] if self.goals else None

    def push_goal(self, goal: str) -> None:
        self.goals.append(goal)

    def pop_goal(self) -> str | None:
        return self.goals.pop() if self.goals else None

    def remember_pair(self, pair: CachedPair) -> CachedPair | None:
        """Add a pair; return the one evicted to make room, if any."""
        evicted = self.cache.pop(self._victim()) if len(self.cache) >= self.capacity else None
        self.cache.append(pair)
        return evicted

    def _victim(self) -> int:
        """Index of the pair to evict under this character's policy."""
        if self.eviction == "fifo" or not self.goal:
            return 0
        n = len(self.cache)
        scores = []
        for i, pair in enumerate(self.cache):
            rel = relevance(pair.text, self.goal)
            recency = i / (n - 1) if n > 1 else 1.0
            score = rel if self.eviction == "relevance" else \
                self.alpha * recency + (1 - self.alpha) * rel
            scores.append((score, i))  # ties: the oldest goes first
        return min(scores)[1]

    def to_dict(self) -> dict[str, Any]:
        return {"goals": list(self.goals), "status": dict(sorted(self.status.items())),
                "cache": [vars(p).copy() for p in self.cache], "eviction": self.eviction,
                "capacity": self.capacity, "alpha": self.alpha}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ShortTerm:
        return cls(goals=list(data.get("goals", [])), status=dict(data.get("status", {})),
                   cache=[CachedPair(**p) for p in data.get("cache", [])],
                   eviction=data.get("eviction", "fifo"),
                   capacity=data.get("capacity", CACHE_SIZE),
                   alpha=data.get("alpha", HYBRID_ALPHA))

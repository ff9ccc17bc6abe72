"""What a channel is given and what it must provide."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, AbstractSet, Protocol

import numpy as np

from graphmem.retrieval.text_index import TextIndex
from graphmem.view import NamespaceView

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass
class Neighbours:
    """The question's nearest owned memories, searched once (`RankContext.nearest`)."""

    widest: int = 0  # the most any channel that will run reads
    searched: int = 0
    rows: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    scores: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.float32))


@dataclass(frozen=True)
class RankContext:
    """What every channel ranks among: the asker's memories in one namespace view.

    ``ranked`` holds the rankings of the channels that already ran for this question
    (the pipeline fills it in channel order), so that a later channel reads the first
    searches instead of running them again; ``memo`` keeps what such a channel derived
    from them (the first hits) for the next one.
    """

    view: NamespaceView
    text_index: TextIndex
    agent: str
    owned: AbstractSet[str]
    ranked: dict[str, list[str]] = field(default_factory=dict)
    memo: dict[str, object] = field(default_factory=dict)
    near: Neighbours = field(default_factory=Neighbours)

    def nearest(self, query: Query, k: int) -> list[tuple[str, float]]:
        """The ``k`` owned memories nearest the question, best first: (id, score)."""
        rows, scores = self.nearest_rows(query, k)
        return self.view.named(rows, scores)

    def nearest_rows(self, query: Query, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The view rows of the ``k`` owned memories nearest the question, best first,
        and their scores.

        Dense, deposit and spread read the question's neighbours, and at a million
        memories each search of the vector index costs milliseconds: the widest search
        any of them will ask for (`widen`) is made once and the others read its head.
        Its scores are exact, so that head is at least as right as a narrower search
        (the index's candidates for a narrow search are the head of a wide one's)."""
        near = self.near
        if k > near.searched:
            near.searched = max(k, near.widest)
            near.rows, near.scores = self.view.nearest_rows(query.vector, near.searched,
                                                            self.owned_rows())
        return near.rows[:k], near.scores[:k]

    def owned_rows(self) -> np.ndarray:
        """The view rows of ``owned`` (sorted): what the text index searches by."""
        return self.view.owned_rows(self.agent)

    def owned_among(self, rows: np.ndarray) -> np.ndarray:
        """Those of ``rows`` that the asker owns, in their order."""
        return among(rows, self.owned_rows())

    def asserted_by(self, agents: list[str]) -> np.ndarray:
        """The rows (sorted) of the memories ``agents`` asserted that the asker owns."""
        if len(agents) == 1:  # already sorted and unique: no sort of 50,000 rows again
            said = self.view.asserted_rows(agents[0])
        else:
            said = np.unique(np.concatenate([self.view.asserted_rows(a) for a in agents]))
        return self.owned_among(said)

    def widen(self, k: int) -> None:
        """The neighbour search reads at least ``k`` memories (see `nearest`)."""
        self.near.widest = max(k, self.near.widest)


def among(rows: np.ndarray, within: np.ndarray) -> np.ndarray:
    """Those of ``rows`` that are in ``within`` (sorted), in their order: a binary search
    of each, not the sort of both that ``np.intersect1d`` makes (at a million memories
    it took 7 ms for an agent's 50,000 statements among its 100,000 memories, and
    ``np.unique`` of the one agent's rows 7 more)."""
    return rows[in_sorted(rows, within)]


def in_sorted(rows: np.ndarray, within: np.ndarray) -> np.ndarray:
    """Per row of ``rows``, whether it is in ``within`` (sorted), by binary search."""
    if not len(within):
        return np.zeros(len(rows), dtype=bool)
    at = np.minimum(np.searchsorted(within, rows), len(within) - 1)
    return within[at] == rows


class Channel(Protocol):
    """One ranking of the asker's memories for a question. A channel that reads the
    question's nearest memories (`RankContext.nearest`) says how many per place it is
    asked for in ``neighbours`` (see `neighbours_read`)."""

    name: str
    order: int

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        """At most ``depth`` owned memory ids, best first (empty: nothing to say)."""
        ...


def neighbours_read(channel: Channel, depth: int) -> int:
    """How many of the question's nearest memories ``channel`` reads at ``depth``."""
    return int(getattr(channel, "neighbours", 0)) * depth

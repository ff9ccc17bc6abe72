"""What a channel is given and what it must provide."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, AbstractSet, Protocol

from graphmem.retrieval.text_index import TextIndex
from graphmem.view import NamespaceView

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


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

    def nearest(self, query: Query, k: int) -> list[tuple[str, float]]:
        """The ``k`` owned memories nearest the question, searched once for each ``k``
        (dense, deposit and spread read the question's neighbours; at a million memories
        each search of the vector index costs milliseconds)."""
        key = f"nearest:{k}"
        if key not in self.memo:
            self.memo[key] = self.view.nearest(query.vector, k,
                                               self.view.owned_rows(self.agent))
        return self.memo[key]  # type: ignore[return-value]


class Channel(Protocol):
    """One ranking of the asker's memories for a question."""

    name: str
    order: int

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        """At most ``depth`` owned memory ids, best first (empty: nothing to say)."""
        ...

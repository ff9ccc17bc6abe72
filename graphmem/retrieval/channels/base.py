"""What a channel is given and what it must provide."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, AbstractSet, Protocol

from graphmem.retrieval.text_index import TextIndex
from graphmem.view import NamespaceView

if TYPE_CHECKING:
    from graphmem.retrieval.query import Query


@dataclass(frozen=True)
class RankContext:
    """What every channel ranks among: the asker's memories in one namespace view."""

    view: NamespaceView
    text_index: TextIndex
    agent: str
    owned: AbstractSet[str]


class Channel(Protocol):
    """One ranking of the asker's memories for a question."""

    name: str
    order: int

    def rank(self, ctx: RankContext, query: Query, depth: int) -> list[str]:
        """At most ``depth`` owned memory ids, best first (empty: nothing to say)."""
        ...

"""The text indexes that follow a namespace view: BM25 over every wording of a memory and
the context it was deposited in, and the set of memories that state a preference."""

from __future__ import annotations

from graphmem.retrieval.bm25 import BM25Index
from graphmem.retrieval.preferences import states_preference
from graphmem.view import MemoryRecord, NamespaceView


class TextIndex:
    """The text indexes that follow a namespace view: BM25 over every variant of a
    memory and the context it was deposited in, and the memories that state a
    preference (`preferences`)."""

    def __init__(self, view: NamespaceView) -> None:
        self.index = BM25Index()
        self.preferences: set[str] = set()
        self._indexed: dict[str, tuple[str, ...]] = {}
        view.on_change(self._update)

    def _update(self, record: MemoryRecord) -> None:
        words = tuple(record.variants or [record.text])
        indexed = words + ((record.context,) if record.context else ())
        if self._indexed.get(record.id) == indexed:
            return
        if record.id in self._indexed:
            self.index.remove(record.id)
        self.index.add(record.id, " ".join(indexed))
        self._indexed[record.id] = indexed
        if any(states_preference(w) for w in words):
            self.preferences.add(record.id)
        else:
            self.preferences.discard(record.id)

    def search(self, query: str, k: int, allowed: set[str]) -> list[str]:
        if not allowed:
            return []
        return [doc for doc, _ in self.index.search(query, k, allowed=allowed)]

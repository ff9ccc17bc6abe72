"""The text indexes that follow a namespace view: BM25 over every wording of a memory and
the context it was deposited in, BM25 over the wordings alone (``words``: a long context
cannot carry a memory there), the wordings' vocabulary (``vocabulary``, embedded word by
word when a question needs it), the set of memories that state a preference and the
wider set of those that state a preference or a constraint (`retrieval.preferences`).

A memory's context (what its deposit answered) belongs to that deposit's parties: once
another agent's deposit is merged into the memory, each owner may search the wordings
(they are the shared statement) but only its own deposit's context. The document of the
memory's first context keeps the memory's id; an owner whose deposit had another context
searches a second document (``id#n``) in its place.

Each memory's documents are keyed by its view row (alternative ones by none), so that a
search among an owner's memories can name them by the rows the view keeps for it
(`NamespaceView.owned_rows`) instead of by id: BM25 then scores only their postings.
"""

from __future__ import annotations

from collections import defaultdict
from typing import AbstractSet

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.retrieval.bm25 import NO_KEY, BM25Index
from graphmem.retrieval.preferences import keeps_rule, states_preference
from graphmem.retrieval.vocabulary import Vocabulary
from graphmem.view import MemoryRecord, NamespaceView

_ALT = "#"  # memory ids never contain it after the prefix; alt documents are "<id>#<n>"
#: attributes made again from the others when a snapshot is restored (`restore_rows`):
#: not saved with it, and no part of its layout
DERIVED = frozenset({"_preferring", "_constraining"})


class TextIndex:
    """BM25 over each memory's wordings and its owners' contexts, and the memories that
    state a preference (``preferences``) or a preference or a constraint
    (``constraints``), kept in step with a namespace view."""

    def __init__(self, view: NamespaceView) -> None:
        self.index = BM25Index()
        self.words = BM25Index()  # the wordings only, no context: shared by every owner
        self.vocabulary = Vocabulary()  # the content words of `words`, embedded on use
        self.preferences: set[str] = set()
        self.constraints: set[str] = set()
        # by view row: whether the memory there is in `preferences` (`preference_rows`),
        # in `constraints` (`constraint_rows`)
        self._preferring = np.zeros(0, dtype=bool)
        self._constraining = np.zeros(0, dtype=bool)
        self._indexed: dict[str, tuple[str, ...]] = {}  # document id -> indexed texts
        self._words_of: dict[str, tuple[str, ...]] = {}  # memory id -> texts in `words`
        self._alt_docs: dict[str, list[str]] = {}  # memory id -> its other documents
        # agent -> memories whose first document it may not search / documents it searches
        self._hidden: dict[str, set[str]] = defaultdict(set)
        self._extra: dict[str, set[str]] = defaultdict(set)
        self._agents_of: dict[str, set[str]] = {}  # memory id -> agents with exceptions
        view.on_change(self._update)

    def _update(self, record: MemoryRecord) -> None:
        words = tuple(record.variants or [record.text])
        self._forget_exceptions(record.id)
        self._index(record.id, words + ((record.context,) if record.context else ()),
                    record.row)
        if self._words_of.get(record.id) != words:
            if record.id in self.words:
                self.words.remove(record.id)
            self.words.add(record.id, " ".join(words), record.row)
            self._words_of[record.id] = words
            self.vocabulary.note(words)
        others = sorted({c for c in record.owner_contexts.values() if c != record.context},
                        key=lambda c: c or "")
        alt_ids = [f"{record.id}{_ALT}{n}" for n in range(1, len(others) + 1)]
        for stale in set(self._alt_docs.get(record.id, [])) - set(alt_ids):
            self.index.remove(stale)
            del self._indexed[stale]
        for doc_id, context in zip(alt_ids, others):
            self._index(doc_id, words + ((context,) if context else ()))
        self._alt_docs[record.id] = alt_ids
        doc_of = dict(zip(others, alt_ids))
        for agent, context in record.owner_contexts.items():
            if context != record.context:
                self._hidden[agent].add(record.id)
                self._extra[agent].add(doc_of[context])
                self._agents_of.setdefault(record.id, set()).add(agent)
        preferring = any(states_preference(w) for w in words)
        self._mark(self.preferences, "_preferring", record, preferring)
        self._mark(self.constraints, "_constraining", record,
                   preferring or any(keeps_rule(w) for w in words))

    def _mark(self, ids: set[str], mask: str, record: MemoryRecord, flag: bool) -> None:
        """Put ``record`` in or out of the set ``ids`` and its row mask (attribute ``mask``)."""
        if flag:
            ids.add(record.id)
        else:
            ids.discard(record.id)
        self._note_row(mask, record.row, flag)

    def _note_row(self, mask: str, row: int, flag: bool) -> None:
        marks = getattr(self, mask)
        if row >= len(marks):
            if not flag:
                return
            grown = np.zeros(max(row + 1, 2 * len(marks), 1024), dtype=bool)
            grown[:len(marks)] = marks
            marks = grown
            setattr(self, mask, marks)
        marks[row] = flag

    def preference_rows(self, rows: np.ndarray) -> np.ndarray:
        """Those of ``rows`` (view rows, e.g. `NamespaceView.asserted_rows`) whose memory
        states a preference, in their order: a pass over ``rows``, no record made (a set
        of ids intersected with the asker's made the record of every preference it
        held: 21 ms a question with 10,000 of them at a million memories, and 45 ms,
        0.6 s at the first, with 100,000)."""
        return _marked(rows, self._preferring)

    def constraint_rows(self, rows: np.ndarray) -> np.ndarray:
        """Those of ``rows`` whose memory states a preference or a constraint, in their
        order (as `preference_rows`)."""
        return _marked(rows, self._constraining)

    def restore_rows(self, view: NamespaceView) -> None:
        """Make the `DERIVED` attributes of a text index restored from a snapshot of
        ``view`` (the rows of `preferences`)."""
        for ids, mask in ((self.preferences, "_preferring"),
                          (self.constraints, "_constraining")):
            setattr(self, mask, np.zeros(0, dtype=bool))
            for memory_id in list(ids):
                self._note_row(mask, view.row_of(memory_id), True)

    def _index(self, doc_id: str, texts: tuple[str, ...], row: int = NO_KEY) -> None:
        if self._indexed.get(doc_id) == texts:
            return
        if doc_id in self._indexed:
            self.index.remove(doc_id)
        self.index.add(doc_id, " ".join(texts), row)
        self._indexed[doc_id] = texts

    def _forget_exceptions(self, memory_id: str) -> None:
        for agent in self._agents_of.pop(memory_id, ()):
            self._hidden[agent].discard(memory_id)
            self._extra[agent] -= set(self._alt_docs.get(memory_id, []))

    def search_words(self, query: str, k: int, allowed: AbstractSet[str] | None = None,
                     rows: np.ndarray | None = None) -> list[str]:
        """The ``k`` best memories by their wordings alone, among ``allowed`` ids or
        among the memories at ``rows`` of the view (found by scoring only their postings,
        where ids are looked up one by one): one of the two."""
        if (allowed is None) == (rows is None):
            raise InvalidInput("search_words takes allowed ids or view rows, one of them")
        if (rows.size if rows is not None else len(allowed or ())) == 0:
            return []
        return [doc for doc, _ in self.words.search(query, k, allowed=allowed, rows=rows)]

    def search(self, query: str, k: int, allowed: AbstractSet[str],
               agent: str | None = None, rows: np.ndarray | None = None) -> list[str]:
        """The ``k`` best memories among ``allowed`` (the asker's), each searched with
        the context ``agent`` may see. ``rows``: the view rows of ``allowed``, when the
        caller has them (the same hits, as for `search_words`)."""
        if not allowed:
            return []
        hidden: AbstractSet[str] = self._hidden.get(agent, set()) if agent else set()
        extra = self._extra.get(agent, set()) if agent else set()
        # some of the agent's memories may be searched by another document than their first
        others = {d for d in extra if d.split(_ALT, 1)[0] in allowed}
        if rows is not None:
            hits = self.index.search(query, k, rows=rows, plus=others, minus=hidden)
        elif hidden or others:
            hits = self.index.search(query, k, allowed=(set(allowed) - hidden) | others)
        else:
            hits = self.index.search(query, k, allowed=allowed)
        return list(dict.fromkeys(doc.split(_ALT, 1)[0] for doc, _ in hits))


def _marked(rows: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Those of ``rows`` marked in ``mask`` (a row past its end is not), in their order."""
    rows = rows[rows < len(mask)]
    return rows[mask[rows]]

"""An agent's memories in a namespace view: its rows, sorted, and its ids.

Rankings search among the memories the asker owns, by row (`owned_rows`) or by id
(`owned_ids`). `OwnerRows` is a base of `graphmem.view.NamespaceView` and reads the
view's state (declared below), which the view keeps in step as it syncs; it owns none.
Imports nothing of graphmem but `graphmem.view_rows`.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import AbstractSet, Any, Mapping

import numpy as np

from graphmem.view_rows import OwnedIds

#: no rows
NO_ROWS = np.zeros(0, dtype=np.int64)
_NOTHING: frozenset[str] = frozenset()


class OwnerRows:
    """`owned_rows`, `owned_ids` and their kind, over the state a `NamespaceView` keeps."""

    records: Mapping[str, Any]  # memory id -> record (its ``owners``)
    _owned: dict[str, array]  # agent -> rows (int64) of what it owns
    _owned_cache: dict[str, SortedRows]
    _owned_ids: Any  # agent -> ids (a dict, or a restored view's lazy one)
    _asserted: dict[str, array]  # agent -> rows of what it asserted
    _asserted_cache: dict[str, SortedRows]
    _rows_removed: int  # rows ever taken out of an agent's lists (`_sorted_rows`)

    def owned_rows(self, agent: str) -> np.ndarray:
        """Rows of the memories ``agent`` owns (forgotten ones included), sorted."""
        return self._sorted_rows(self._owned, self._owned_cache, agent)

    def asserted_rows(self, agent: str) -> np.ndarray:
        """Rows of the memories ``agent`` asserted itself, sorted."""
        return self._sorted_rows(self._asserted, self._asserted_cache, agent)

    def _sorted_rows(self, rows: dict[str, array], cache: dict[str, SortedRows],
                     agent: str) -> np.ndarray:
        """``rows[agent]`` as a sorted array (one array until the rows change).

        Rows come in order: a new memory takes the next row, so the rows appended since
        the last sorted copy usually come after it, and the copy is extended by them, not
        sorted again (sorting a million nearly sorted rows cost 12 ms, on the first
        recall after each write of a one-person store). A removal counts in
        ``_rows_removed`` before it is made, so a copy made before it, or extended while
        it was made, is never extended after; the writer never changes a copy a reader
        may hold."""
        removed = self._rows_removed
        kept = cache.get(agent)
        current = rows.get(agent)
        if current is None:
            return NO_ROWS
        if kept is not None and kept.removed == removed:
            if kept.count == len(current):
                return kept.rows
            tail = np.array(current[kept.count:], dtype=np.int64)
            count = kept.count + len(tail)
            after = len(tail) > 0 and (len(kept.rows) == 0 or tail[0] > kept.rows[-1])
            if after and bool(np.all(tail[1:] > tail[:-1])) and self._rows_removed == removed:
                sorted_rows = np.concatenate([kept.rows, tail])
                cache[agent] = SortedRows(sorted_rows, count, removed)
                return sorted_rows
        copied = np.array(current, dtype=np.int64)
        sorted_rows = np.sort(copied)
        cache[agent] = SortedRows(sorted_rows, len(copied), removed)
        return sorted_rows

    def agents(self) -> list[str]:
        """The agents that own at least one memory of the namespace."""
        return [agent for agent, rows in self._owned.items() if rows]

    def owned_ids(self, agent: str) -> AbstractSet[str]:
        """Ids of the memories ``agent`` owns (forgotten ones included); read-only, and
        live: it follows the view as it syncs. In a restored view they are made when
        first asked whether they hold an id, or listed (`view_rows.OwnedIds`)."""
        made = getattr(self._owned_ids, "made", None)
        if made is not None and agent in self._owned_ids and made(agent) is None:
            return OwnedIds(self._owned, self._owned_ids, agent)
        owned = self._owned_ids.get(agent)
        return _NOTHING if owned is None else owned.keys()

    def _made_owned_ids(self, agent: str) -> dict[str, None] | None:
        """The ids ``agent`` owns, to keep in step with its rows; in a restored view, only
        if they were made (read) since loading: the others are made from the owned rows
        when first read, as they are then (an agent's hundred thousand ids at a million
        memories cost 40-60 ms to make, on its first write in the process)."""
        made = getattr(self._owned_ids, "made", None)
        return self._owned_ids[agent] if made is None else made(agent)

    def owns(self, agent: str, memory_id: str) -> bool:
        record = self.records.get(memory_id)
        return record is not None and agent in record.owners


@dataclass(frozen=True)
class SortedRows:
    """An agent's rows sorted: the first ``count`` of its row list, made while
    ``removed`` rows had been taken out of the view's lists."""

    rows: np.ndarray
    count: int
    removed: int

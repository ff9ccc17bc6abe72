"""Per-row columns of a namespace view: what rankings read of hundreds of memories.

A recall reads, of each of the hundreds of memories its channels find, whether it is
forgotten, its time and whether it has AFFILIATED siblings. A view restored from a
snapshot makes a memory's record only when something reads it (decoding its JSON), and
at a million memories making the records of a question's 500 nearest memories was most
of a recall's time. These columns answer those three questions by row; the view keeps
them in step with its records (`NamespaceView.upsert`, `apply`) and a snapshot saves
them as arrays. `OwnedIds` answers how many memories an agent owns off its rows.
"""

from __future__ import annotations

from typing import AbstractSet, Iterable, Iterator, Mapping, Sized, TypeVar

import numpy as np

#: the time column's value for a memory with no time
NO_TIME = np.iinfo(np.int64).min
_T = TypeVar("_T")


class RowColumns:
    """Forgotten, time and has-siblings, one entry per view row (room for ``capacity``)."""

    #: the columns, by the names a snapshot saves them under
    NAMES = ("forgotten", "t", "linked")

    def __init__(self, capacity: int = 64) -> None:
        self.forgotten = np.zeros(capacity, dtype=bool)
        self.t = np.full(capacity, NO_TIME, dtype=np.int64)
        self.linked = np.zeros(capacity, dtype=bool)

    @classmethod
    def of(cls, arrays: Mapping[str, np.ndarray]) -> "RowColumns":
        """Columns over ``arrays`` (by `NAMES`; a snapshot's, mapped), not copied."""
        columns = cls(0)
        columns.forgotten, columns.t, columns.linked = (arrays[n] for n in cls.NAMES)
        if not len(columns.forgotten) == len(columns.t) == len(columns.linked):
            raise ValueError("row columns of different lengths")
        return columns

    def note(self, row: int, *, forgotten: bool, t: int | None, linked: bool) -> None:
        """Set ``row``'s entries (growing the columns if it is past their end)."""
        if row >= len(self.forgotten):
            size = max(64, 2 * row)
            self.forgotten = _grown(self.forgotten, size, False)
            self.t = _grown(self.t, size, NO_TIME)
            self.linked = _grown(self.linked, size, False)
        self.forgotten[row] = forgotten
        self.t[row] = NO_TIME if t is None else t
        self.linked[row] = linked

    def time(self, row: int) -> int | None:
        t = int(self.t[row])
        return None if t == NO_TIME else t

    def arrays(self, n: int) -> dict[str, np.ndarray]:
        """The first ``n`` rows of each column, by name (what a snapshot saves)."""
        return {name: getattr(self, name)[:n] for name in self.NAMES}


def _grown(column: np.ndarray, size: int, fill: object) -> np.ndarray:
    grown = np.full(size, fill, dtype=column.dtype)
    grown[:len(column)] = column
    return grown


class OwnedIds(AbstractSet[str]):
    """The ids an agent owns in a restored view that has not made them yet: counted off
    its owned rows (``owned``: agent -> rows), made (``ids[agent]``: the view's lazily
    made dict of ids) only when asked whether they hold an id, or listed. A recall asks
    most often only whether there are any, or how many: making an agent's hundred
    thousand ids at a million memories cost 40-60 ms, on its first recall in the
    process."""

    __slots__ = ("_owned", "_ids_of", "_agent", "_ids")

    def __init__(self, owned: Mapping[str, Sized], ids: Mapping[str, Mapping[str, None]],
                 agent: str) -> None:
        self._owned, self._ids_of, self._agent = owned, ids, agent
        self._ids: AbstractSet[str] | None = None

    def _made(self) -> AbstractSet[str]:
        if self._ids is None:
            self._ids = self._ids_of[self._agent].keys()
        return self._ids

    def __len__(self) -> int:
        return len(self._owned.get(self._agent, ()))

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self._made()

    def __iter__(self) -> Iterator[str]:
        return iter(self._made())

    @classmethod
    def _from_iterable(cls, items: Iterable[_T]) -> AbstractSet[_T]:
        return set(items)  # what `&` and `|` give, as a dict's keys give

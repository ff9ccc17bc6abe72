"""Per-row columns of a namespace view: what rankings read of hundreds of memories.

A recall reads, of each of the hundreds of memories its channels find, whether it is
forgotten, its time and whether it has AFFILIATED siblings. A view restored from a
snapshot makes a memory's record only when something reads it (decoding its JSON), and
at a million memories making the records of a question's 500 nearest memories was most
of a recall's time. These columns answer those three questions by row; the view keeps
them in step with its records (`NamespaceView.upsert`, `apply`) and a snapshot saves
them as arrays.
"""

from __future__ import annotations

import numpy as np

#: the time column's value for a memory with no time
NO_TIME = np.iinfo(np.int64).min


class RowColumns:
    """Forgotten, time and has-siblings, one entry per view row."""

    def __init__(self, forgotten: np.ndarray | None = None, t: np.ndarray | None = None,
                 linked: np.ndarray | None = None) -> None:
        self.forgotten = np.zeros(64, dtype=bool) if forgotten is None else forgotten
        self.t = np.full(64, NO_TIME, dtype=np.int64) if t is None else t
        self.linked = np.zeros(64, dtype=bool) if linked is None else linked
        if not len(self.forgotten) == len(self.t) == len(self.linked):
            raise ValueError("row columns of different lengths")

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
        return {"forgotten": self.forgotten[:n], "t": self.t[:n], "linked": self.linked[:n]}


def _grown(column: np.ndarray, size: int, fill: object) -> np.ndarray:
    grown = np.full(size, fill, dtype=column.dtype)
    grown[:len(column)] = column
    return grown

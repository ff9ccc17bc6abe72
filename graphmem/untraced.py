"""Containers for what grows with the number of memories, kept where the garbage
collector does not walk them.

CPython's full collection follows every reference of every container it tracks. A view
of a million memories held its ids in lists (the view's rows, each BM25 index's slots,
the restored records' keys) and each agent's owned rows and ids in lists and sets: some
eleven million references, followed at every full collection (about every 25-100
remembers at a million), a pause of up to half a second. A tuple of strings, an array of
ints and a dict of strings to None hold the same things, and their items are never
followed: the collector untracks such a tuple the first time it sees it, never tracks
such a dict, and an array shows it only its type.

    ids = IdList(["m1", "m2"]); ids.append("m3"); ids[2] == "m3"
    rows = row_list([4, 1]); rows.append(7); rows.remove(1)
    owned = id_set(["m1"]); owned["m2"] = None; "m2" in owned.keys()

What is left is walked at every full collection, though it lives long: the interpreter's
modules, the models, each view's records. ``gc.freeze()`` once warm takes out what the
process holds then, but a view keeps making records (of the memories a write changes
and of those recalls read): at a million memories the objects a full collection walks
grew by about 340 a remember and recall, and its pause to 0.36 s a thousand writes after
the freeze. ``freeze_survivors`` freezes again after every full collection, so that each
walks only what was made since the one before.

Imports nothing of graphmem; used by graphmem.view, graphmem.retrieval.bm25,
graphmem.view_snapshot and ``graphmem serve``.
"""

from __future__ import annotations

import gc
from array import array
from itertools import chain
from typing import Callable, Iterable, Iterator, Sequence, overload

#: items an IdList gathers in its list before folding them into its tuple: a fold copies
#: the tuple (8 bytes an item: 8 MB at a million, once every this many appends)
FOLD = 4096


class IdList(Sequence[str]):
    """Strings in order, grown at the end: a tuple and a short list of what came after."""

    __slots__ = ("_base", "_tail")

    def __init__(self, items: Iterable[str] = ()) -> None:
        self._base: tuple[str, ...] = tuple(items)
        self._tail: list[str] = []

    def append(self, item: str) -> None:
        self._tail.append(item)
        if len(self._tail) >= FOLD:
            self._base += tuple(self._tail)
            self._tail.clear()

    def __len__(self) -> int:
        return len(self._base) + len(self._tail)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return list(self)[i]
        base = self._base
        if 0 <= i < len(base):  # the common case first: a row read in a ranking
            return base[i]
        if i < 0:
            i += len(self)
            if i < 0:
                raise IndexError("IdList index out of range")
            if i < len(base):
                return base[i]
        return self._tail[i - len(base)]

    def __iter__(self) -> Iterator[str]:
        return chain(self._base, self._tail)

    def at(self, rows: Iterable[int]) -> Iterator[str]:
        """The items at ``rows`` (non-negative, each less than the length), in their
        order: the tuple's own look-up for most, not `__getitem__`'s (an agent's hundred
        thousand of a million: 32 ms against 40, the rest being the dict they go into)."""
        base, tail = self._base, self._tail
        n = len(base)
        return (base[i] if i < n else tail[i - n] for i in rows) if tail else \
            map(base.__getitem__, rows)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (IdList, list, tuple)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # it changes

    def __repr__(self) -> str:
        return f"IdList({list(self)!r})"

    def __reduce__(self):
        return IdList, (list(self),)


def row_list(rows: Iterable[int] | bytes = ()) -> array:
    """Row numbers (int64) in an array: appended to and removed from like a list
    (``bytes`` is a saved column's raw int64 values)."""
    if isinstance(rows, bytes):
        kept = array("q")
        kept.frombytes(rows)
        return kept
    return array("q", rows)


def id_set(ids: Iterable[str] = ()) -> dict[str, None]:
    """Ids as the keys of a dict (``.keys()`` is the set): membership and set operations
    as a set's, untracked by the collector while it holds only strings."""
    return dict.fromkeys(ids)


def freeze_survivors() -> Callable[[], None]:
    """From now on, after each full collection, freeze what survived it (``gc.freeze``):
    the next full collection walks only what was made since. Returns the function that
    stops it (what is frozen stays frozen).

    For a long-running process that holds what it reads (``graphmem serve``). The price:
    a reference cycle among frozen objects that later becomes garbage is never
    collected (what is in no cycle is freed by reference counting, frozen or not). A
    view's records hold strings, numbers and sets of strings, in no cycle: at a million
    memories, after 1,000 writes so, a collection of everything unfrozen found nothing
    unreachable (docs/scaling-out.md).
    """
    def after(phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2:
            gc.freeze()

    gc.callbacks.append(after)

    def stop() -> None:
        if after in gc.callbacks:
            gc.callbacks.remove(after)
    return stop

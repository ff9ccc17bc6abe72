"""Masks of the documents a BM25 search by rows admits, kept between searches.

A search scoped by ``rows`` (an agent's view rows) first marks, by slot, the live
documents those rows key. Made by a pass over the rows, not over the index, that still
cost about a millisecond inside a recall (0.6 ms in a loop of its own) for an owner's
100,000 at a million memories, and a recall searches two indexes by the same rows, each
once or twice. So `RowMasks` keeps the masks of the last `MASKS` arrays of sorted rows, by
identity (a view hands out a new array when an agent's rows change, and never changes one
it handed out), and brings one up to date by the slots added or removed since (a few per
deposit), or extends it when the agent wrote and its rows grew, instead of making it
again. Owned by `graphmem.retrieval.bm25`, which tells it every slot it adds or removes.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MASKS", "MASK_CHANGES", "NO_KEY", "RowMasks"]

#: rows arrays whose masks are kept: the agents asking in turn. A mask is a byte a slot
#: (at a million memories, 1-2 MB an index)
MASKS = 8
#: slots added or removed that kept masks catch up with; past it they are dropped
MASK_CHANGES = 4096
#: the key of a document added without one (no ``rows`` admits it), and the slot of a
#: key that names no live document
NO_KEY = NO_SLOT = -1


class RowMasks:
    """The kept masks of one index, and the slots added or removed since the oldest was
    made, in order."""

    def __init__(self) -> None:
        self._kept: dict[int, _Mask] = {}
        self._changed: list[int] = []

    def __len__(self) -> int:
        return len(self._kept)

    def note(self, slot: int) -> None:
        """Note a slot added or removed; past `MASK_CHANGES` the masks are dropped
        instead (made again when next asked for)."""
        if not self._kept:
            return
        if len(self._changed) >= MASK_CHANGES:
            self._kept.clear()
            self._changed.clear()
            return
        self._changed.append(slot)

    def mask(self, rows: np.ndarray, slot_of_key: np.ndarray, keys: np.ndarray,
             live: np.ndarray, capacity: int) -> np.ndarray:
        """A mask by slot (``capacity`` long) of the live documents whose key is in
        ``rows``, as the index stands (``slot_of_key``: by key, its live slot; ``keys``
        and ``live``: by slot); read only, it may be kept for the next search."""
        kept = self._kept.pop(id(rows), None)
        if kept is None or kept.rows is not rows:
            kept = self._extended_from(rows)
        if kept is not None and (kept.seen == len(self._changed)
                                 or kept.catch_up(self._changed, keys, live)):
            if kept.rows is not rows:  # the rows it was made for, and more after them
                kept.extend(rows, slot_of_key)
            self._kept[id(rows)] = kept  # the most recently used last
            return kept.mask
        mask = np.zeros(capacity, dtype=bool)  # slots added later fit
        _admit(mask, rows, slot_of_key)
        if _ascending(rows):  # a catch-up looks keys up in them
            if len(self._kept) >= MASKS:
                self._kept.pop(next(iter(self._kept)))
            if not self._kept:
                self._changed.clear()
            self._kept[id(rows)] = _Mask(rows, mask, len(self._changed))
        return mask

    def _extended_from(self, rows: np.ndarray) -> _Mask | None:
        """The kept mask whose rows ``rows`` begins with and extends (taken out of the
        kept ones), if any: an agent's rows after it wrote are its rows before and the
        new ones after them, in a new array."""
        for key, kept in self._kept.items():
            old = kept.rows
            if 0 < len(old) < len(rows) and old[-1] < rows[len(old)] \
                    and old[0] == rows[0] and old[-1] == rows[len(old) - 1] \
                    and np.array_equal(old, rows[:len(old)]) and _ascending(rows[len(old):]):
                return self._kept.pop(key)
        return None


class _Mask:
    """A mask by slot of the live documents keyed by ``rows`` (sorted), made when
    ``seen`` changes had been noted."""

    __slots__ = ("rows", "mask", "seen")

    def __init__(self, rows: np.ndarray, mask: np.ndarray, seen: int) -> None:
        self.rows, self.mask, self.seen = rows, mask, seen

    def catch_up(self, changed_slots: list[int], keys: np.ndarray, live: np.ndarray) -> bool:
        """Bring the mask up to the changes noted since ``seen``; False (nothing
        changed) if a slot is past its end: the index has grown, and it is made again."""
        changed = np.array(changed_slots[self.seen:], dtype=np.int64)
        if changed.size and int(changed.max()) >= len(self.mask):
            return False
        keyed_by = keys[changed].astype(np.int64)
        at = np.minimum(np.searchsorted(self.rows, keyed_by), max(len(self.rows) - 1, 0))
        keyed = (keyed_by != NO_KEY) & live[changed]
        if len(self.rows):
            keyed &= self.rows[at] == keyed_by
        else:
            keyed[:] = False
        self.mask[changed] = keyed
        self.seen = len(changed_slots)
        return True

    def extend(self, rows: np.ndarray, slot_of_key: np.ndarray) -> None:
        """Admit the documents of the rows ``rows`` holds after ``self.rows`` (which it
        begins with), and keep ``rows`` as the mask's rows from now on."""
        _admit(self.mask, rows[len(self.rows):], slot_of_key)
        self.rows = rows


def _admit(mask: np.ndarray, rows: np.ndarray, slot_of_key: np.ndarray) -> None:
    """Mark in ``mask`` the live slots of the keys in ``rows``."""
    known = rows[(rows >= 0) & (rows < len(slot_of_key))]
    slots = slot_of_key[known]
    mask[slots[slots != NO_SLOT]] = True


def _ascending(rows: np.ndarray) -> bool:
    return rows.ndim == 1 and (rows.size < 2 or bool(np.all(rows[1:] > rows[:-1])))

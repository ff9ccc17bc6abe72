"""Columns on disk that a view snapshot is loaded from without building every object.

A namespace view holds, per memory, a record and a few index entries; building 100,000
of each from a pickle costs seconds. A snapshot keeps them as columns instead, and a
view restored from it makes a record (or an index entry) only when something reads it:

    write_json_column(directory, name, values)  one JSON document per value, concatenated
                                                (``name.bin``), with their byte offsets
                                                (``name.off.npy``)
    copy_json_column(directory, name, saved,    the same, copying the values a column
                     positions, value)          saved already holds in runs
    read_json_column(directory, name)           (blob, offsets) of such a column
    LazyDict(keys, make, source)                a mutable mapping over ``keys`` whose
                                                values are made by ``make(position)`` on
                                                first read, then kept like a dict's
                                                (``source``: the column they were saved in)
    LazyList(n, make, source)                   the same for a list

Arrays are read with ``np.load(mmap_mode="c")``: the pages come from the file as they
are touched, shared with every process that maps the same snapshot, and a write lands in
a private copy (the file never changes). JSON and ``.npy`` without pickles: loading runs
no code from the file. Owns only these containers and file formats; imports nothing of
graphmem.
"""

from __future__ import annotations

import json
import mmap
import sys
from collections.abc import Callable, Iterable, Iterator, MutableMapping, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np
from pydantic_core import from_json

__all__ = ["LazyDict", "LazyList", "copy_json_column", "load_array", "read_json_column",
           "write_json_column"]

V = TypeVar("V")
_GONE = object()
_ABSENT = object()  # not made yet


def write_json_column(directory: Path, name: str, values: Iterable[Any]) -> int:
    """Write ``values`` as a JSON column. Returns the number of values."""
    offsets = [0]
    with open(directory / f"{name}.bin", "wb") as handle:
        for value in values:
            data = json.dumps(value, separators=(",", ":")).encode()
            handle.write(data)
            offsets.append(offsets[-1] + len(data))
    np.save(directory / f"{name}.off.npy", np.asarray(offsets, dtype=np.int64),
            allow_pickle=False)
    return len(offsets) - 1


def copy_json_column(directory: Path, name: str, saved: "JsonColumn", positions: np.ndarray,
                     value: Callable[[int], Any]) -> int:
    """Write a JSON column whose i-th value is ``saved``'s ``positions[i]``-th as it was
    written, or ``value(i)`` encoded where ``positions[i]`` is negative (read or changed
    since). Runs of consecutive saved values are copied in one write: a million values
    in a fraction of a second, against seconds one at a time. Returns the number of
    values."""
    positions = np.asarray(positions, dtype=np.int64)
    n = len(positions)
    kept = positions >= 0
    goes_on = np.zeros(n, dtype=bool)  # the value after the one before in ``saved``
    goes_on[1:] = kept[1:] & kept[:-1] & (positions[1:] == positions[:-1] + 1)
    starts = np.flatnonzero(~goes_on)
    ends = np.append(starts[1:], n).astype(np.int64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    at = 0
    with open(directory / f"{name}.bin", "wb") as handle:
        for start, end in zip(starts.tolist(), ends.tolist()):
            if kept[start]:
                first, last = int(positions[start]), int(positions[end - 1]) + 1
                lo, hi = int(saved.offsets[first]), int(saved.offsets[last])
                handle.write(saved.blob[lo:hi].data)  # a view of the mapped bytes: no copy
                offsets[start + 1:end + 1] = saved.offsets[first + 1:last + 1] - lo + at
                at += hi - lo
            else:  # a run of one: the next value is never saved's next
                data = json.dumps(value(start), separators=(",", ":")).encode()
                handle.write(data)
                at += len(data)
                offsets[start + 1] = at
    np.save(directory / f"{name}.off.npy", offsets, allow_pickle=False)
    return n


def read_json_column(directory: Path, name: str, *, populate: bool = False) -> "JsonColumn":
    """A JSON column, mapped; ``populate`` as for `load_array`."""
    return JsonColumn(_mapped_bytes(directory / f"{name}.bin", populate),
                      load_array(directory / f"{name}.off.npy", populate=populate))


def load_array(path: Path, *, populate: bool = False) -> np.ndarray:
    """An ``.npy`` file mapped copy-on-write (a plain ndarray, never a pickle).

    ``populate``: every page is mapped now, for an array read at random rows. The first
    read of a mapped page costs a fault; a recall at a million memories reads about 700
    vectors at random, and on this machine (a virtual one) those faults cost 7-40 ms a
    recall against 0.4 ms once mapped (1.5 GB of vectors map in 0.3 s when the file is
    in the page cache; read from disk otherwise, once, instead of a page per fault).
    The pages stay the kernel's, shared with other processes and reclaimable: no
    private memory."""
    mapped = np.load(path, mmap_mode="c", allow_pickle=False)
    if populate and isinstance(mapped, np.memmap):
        _populate(mapped)
    return mapped.view(np.ndarray)


#: Linux's MADV_POPULATE_READ (5.14 on; Python's mmap module names it from 3.13)
_POPULATE_READ = getattr(mmap, "MADV_POPULATE_READ", 22)


def _populate(mapped: np.memmap) -> None:
    handle = getattr(mapped, "_mmap", None)
    if handle is None or not sys.platform.startswith("linux"):
        return
    for advice in (_POPULATE_READ, mmap.MADV_WILLNEED):  # an older kernel: read ahead
        try:
            handle.madvise(advice)
            return
        except OSError:
            continue


def _mapped_bytes(path: Path, populate: bool) -> np.ndarray:
    if path.stat().st_size == 0:
        return np.zeros(0, dtype=np.uint8)
    mapped = np.memmap(path, dtype=np.uint8, mode="r")
    if populate:
        _populate(mapped)
    return mapped.view(np.ndarray)


class JsonColumn:
    """The values of a JSON column, decoded one at a time."""

    def __init__(self, blob: np.ndarray, offsets: np.ndarray) -> None:
        self.blob, self.offsets = blob, offsets

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def raw(self, i: int) -> bytes:
        return self.blob[int(self.offsets[i]):int(self.offsets[i + 1])].tobytes()

    def __getitem__(self, i: int) -> Any:
        # pydantic's parser (a dependency already): a third of json.loads's time, and a
        # recall at a million memories reads hundreds of records for the first time
        return from_json(self.raw(i))


class LazyDict(MutableMapping, Generic[V]):
    """A dict whose initial entries are made on first read.

    ``keys`` are the initial keys in order; ``make(i)`` makes the value of the i-th. An
    entry once read is an ordinary value: mutate it in place, as callers of a dict do.
    ``source``, if given, is the column the entries were saved in (the i-th entry's
    encoding is ``source.raw(i)``), for a writer that copies unread entries rather than
    encode them again (`saved_positions`).
    """

    def __init__(self, keys: Sequence[str], make: Callable[[int], V],
                 source: JsonColumn | None = None,
                 like: "LazyDict | None" = None) -> None:
        # a tuple of strings: the garbage collector does not walk it (`graphmem.untraced`)
        self._base = keys = tuple(keys)
        self._position: dict[str, int]
        # dicts loaded with the same keys (the records and the text index's entries of
        # each memory) share one key -> position table: never changed after loading
        if like is not None and like._base == keys:
            self._base, self._position = like._base, like._position
        else:
            self._position = dict(zip(keys, range(len(keys))))
        self._make, self._source = make, source
        self._made: dict[str, Any] = {}  # read, set or deleted (_GONE) since loading
        self._added: dict[str, None] = {}  # keys not among the initial ones, in order
        self._size = len(keys)

    def __getitem__(self, key: str) -> V:
        made = self._made
        value = made.get(key, _ABSENT)  # one step: another thread may drop it (trim)
        if value is _GONE:
            raise KeyError(key)
        if value is not _ABSENT:
            return value
        value = self._make(self._position[key])  # KeyError if it was never there
        made[key] = value
        return value

    def __contains__(self, key: object) -> bool:
        if key in self._made:
            return self._made[key] is not _GONE
        return key in self._position

    def __setitem__(self, key: str, value: V) -> None:
        if key not in self:
            self._size += 1
            if key not in self._position:
                self._added[key] = None
        self._made[key] = value

    def __delitem__(self, key: str) -> None:
        if key not in self:
            raise KeyError(key)
        self._size -= 1
        if key in self._position:
            self._made[key] = _GONE
        else:
            del self._made[key]
            del self._added[key]

    def __iter__(self) -> Iterator[str]:
        for key in self._base:
            if self._made.get(key, None) is not _GONE:
                yield key
        yield from list(self._added)

    def __len__(self) -> int:
        return self._size

    def made(self, key: str) -> V | None:
        """``key``'s value if it was read or set since loading, else None (never made
        here: for a writer that keeps made values in step and leaves the others to be
        made when first read)."""
        value = self._made.get(key)
        return None if value is _GONE else value

    def saved_positions(self, keys: Sequence[str]) -> np.ndarray:
        """Each of ``keys``' position in `source` while its value is the saved one, else
        -1 (read, set or added since: a writer encodes those)."""
        if self._source is None:
            return np.full(len(keys), -1, dtype=np.int64)
        made, position = self._made, self._position
        return np.fromiter((-1 if key in made else position.get(key, -1) for key in keys),
                           dtype=np.int64, count=len(keys))


class LazyList(Generic[V]):
    """A list whose first ``n`` items are made by ``make(i)`` on first read; it grows by
    ``append`` and items are replaced by assignment (what BM25's term lists need).
    ``source``, when given, is the column the items were saved in: `saved_positions` names
    the items not made or replaced since, so that a save copies them instead of making
    them."""

    def __init__(self, n: int, make: Callable[[int], V],
                 source: JsonColumn | None = None) -> None:
        self._n, self._make, self._source = n, make, source
        self._made: dict[int, V] = {}
        self._added: list[V] = []

    def saved_positions(self) -> np.ndarray:
        """Each item's position in `source` while it is the saved one, else -1."""
        if self._source is None:
            return np.full(len(self), -1, dtype=np.int64)
        positions = np.arange(len(self), dtype=np.int64)
        positions[self._n:] = -1
        if self._made:
            positions[np.fromiter(self._made, dtype=np.int64, count=len(self._made))] = -1
        return positions

    def __len__(self) -> int:
        return self._n + len(self._added)

    def __getitem__(self, i: int) -> V:
        if i < 0:
            i += len(self)
        if i >= self._n:
            return self._added[i - self._n]
        if i not in self._made:
            if i < 0:
                raise IndexError(i)
            self._made[i] = self._make(i)
        return self._made[i]

    def __setitem__(self, i: int, value: V) -> None:
        if i < 0:
            i += len(self)
        if i >= self._n:
            self._added[i - self._n] = value
        elif i < 0:
            raise IndexError(i)
        else:
            self._made[i] = value

    def append(self, value: V) -> None:
        self._added.append(value)

    def __iter__(self) -> Iterator[V]:
        for i in range(len(self)):
            yield self[i]

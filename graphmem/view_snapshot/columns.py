"""Which parts of a view and its text index a snapshot keeps as columns, and how.

Everything that grows with the number of memories is a column, read lazily on load
(`graphmem.view_snapshot.lazy`): the records (one JSON document each), the row lists of
each owner and asserter (one int array each), the entity timelines, BM25's postings
(one array of slots and one of term frequencies for all terms, cut by offsets), its
document ids, lengths and term lists, and the text index's per-document texts. What
stays small (the entity resolver, per-place latest memories, term document counts, the
exceptions of a few owners) is returned to the caller, which pickles it.

    save_view(directory, view) -> small state     load_view(directory, view, small state)
    save_text(directory, index) -> small state    load_text(directory, index, small state)

Imports graphmem.view and graphmem.retrieval; used only by graphmem.view_snapshot.
"""

from __future__ import annotations

import json
import os
from array import array
from collections import OrderedDict
from dataclasses import fields
from pathlib import Path
from typing import Any, BinaryIO, Callable, Sequence

import numpy as np

from graphmem.retrieval.bm25 import NO_KEY, NO_SLOT, BM25Index, _Postings
from graphmem.retrieval.text_index import DERIVED as TEXT_DERIVED, TextIndex
from graphmem.retrieval.tokenize import tokenize
from graphmem.retrieval.vocabulary import Vocabulary
from graphmem.vector_index import CoarseIndex
from graphmem.untraced import IdList, id_set, row_list
from graphmem.view import MemoryRecord, NamespaceView
from graphmem.view_rows import RowColumns
from graphmem.view_snapshot.lazy import (_ABSENT, LazyDict, LazyList, copy_json_column,
                                         load_array, read_json_column, write_json_column)

_SETS = {f.name for f in fields(MemoryRecord)
         if isinstance(getattr(MemoryRecord("", 0, "", 0), f.name), set)}
_FIELDS = [f.name for f in fields(MemoryRecord)]


# -- codecs: what one column's value is in JSON ------------------------------------------

def _record_out(record: MemoryRecord) -> dict:
    return {name: (sorted(value) if name in _SETS else value)
            for name in _FIELDS for value in (getattr(record, name),)}


def _record_in(data: dict) -> MemoryRecord:
    for name in _SETS:
        data[name] = set(data[name])
    return MemoryRecord(**data)


def _timeline_in(data: list) -> list[tuple[int, int, str]]:
    return [(int(t), int(recorded_at), mid) for t, recorded_at, mid in data]


#: view attribute -> (encode, decode) of its values; each is a lazily read JSON column
VIEW_JSON: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "records": (_record_out, _record_in),
    "_mentioned_by": (sorted, set),
    "_timelines": (lambda arc: [list(item) for item in arc], _timeline_in),
}
TEXT_JSON: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "_indexed": (list, tuple),
    "_words_of": (list, tuple),
    "_alt_docs": (list, list),
}
#: view attributes of agent -> rows (int lists), kept as one array each
VIEW_ROWS = ("_owned", "_asserted")
#: attributes made again on load from the others, never saved
VIEW_DERIVED = ("_ids", "_owned_ids", "_coarse", "_training", "_positions")
#: attributes a restored view starts empty or gets elsewhere (its vectors are mapped
#: files of their own), never saved, and no part of the layout
VIEW_UNSAVED = ("_listeners", "_matrix", "_owned_cache", "_asserted_cache",
                "_rows_removed", "_saved_sibling_rows")
BM25_INDEXES = ("index", "words")
#: the text index's vocabulary (`graphmem.retrieval.vocabulary`): saved in files of its
#: own (``text.vocabulary.json`` and ``.npy``), never in the pickle
VOCABULARY, VOCABULARY_FILE = "vocabulary", "text.vocabulary"
_NO_ROWS = np.zeros(0, dtype=np.int64)
#: the records' AFFILIATED siblings by row (`_sibling_columns`)
SIBLING_FILES = ("view.siblings.off.npy", "view.siblings.rows.npy", "view.siblings.unheld.json")


def savable(text_index: TextIndex) -> bool:
    """Whether the index can be saved (its BM25s use the standard tokenizer)."""
    return all(getattr(text_index, name)._tokenize is tokenize for name in BM25_INDEXES)


def last_written(view: NamespaceView) -> tuple[str, int] | None:
    """(id, seq) of the memory written last (the first such in row order)."""
    seqs = _seqs(view)
    if not len(seqs):
        return None
    i = int(np.argmax(seqs))
    return view._ids[i], int(seqs[i])


class RecordDict(LazyDict[MemoryRecord]):
    """The records of a restored view, with each one's seq as saved (``seqs``, by row),
    so that a save need not make the records nobody read.

    A record made only to be read is the saved one again, and can be dropped and made
    again when next read: `trim` drops those read least recently beyond a number. A
    record set here (the view sets each one it changes: `NamespaceView.upsert`, `apply`)
    is never dropped. Recalls read while a catch-up changes and trims (under the views'
    lock): a key once set is never trimmed, whatever order those steps interleave in.
    """

    seqs: np.ndarray
    #: each saved record's AFFILIATED siblings (`_sibling_columns`: offsets by row, the
    #: siblings' rows, the ids of those the view did not hold), set on load
    siblings: tuple[np.ndarray, np.ndarray, list[str]] | None = None
    #: the snapshot had no sibling columns: ``siblings`` was made on load from its
    #: records, and the snapshot should be saved again (`graphmem.views`)
    siblings_made: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read: OrderedDict[str, None] = OrderedDict()  # made to read: by last read
        self._set: set[str] = set()  # set since loading: kept
        # by row: whether the record is made (marked before it is made, cleared after it
        # is trimmed, so a reader never takes a made record for a saved one)
        self._made_rows = np.zeros(len(self._base), dtype=bool)

    def _mark(self, key: str) -> None:
        at = self._position.get(key)
        if at is not None:
            self._made_rows[at] = True

    def saved_sibling_rows(self, rows: np.ndarray, held_row: Callable[[str], int]
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The siblings of the memories at ``rows`` (view rows) whose record is not made,
        as their saved records hold them: (of, sibling) rows, only those the view holds
        (``held_row``: the row of an id the snapshot did not hold, -1 if still not); and
        the rows not answered, whose records must be read (made: they may have changed;
        added since loading)."""
        if self.siblings is None:
            return _NO_ROWS, _NO_ROWS, rows
        offsets, siblings, unheld = self.siblings
        n = len(offsets) - 1
        answered = rows < n
        answered[answered] = ~self._made_rows[rows[answered]]
        asked = rows[answered]
        starts = offsets[asked]
        counts = offsets[asked + 1] - starts
        ends = np.cumsum(counts)
        of = np.repeat(asked, counts)
        found = siblings[np.repeat(starts - ends + counts, counts) + np.arange(ends[-1] if
                                                                             len(ends) else 0)]
        if unheld and len(found) and int(found.max()) >= n:
            beyond = found >= n
            found = found.copy()
            found[beyond] = [held_row(unheld[at]) for at in (found[beyond] - n).tolist()]
            keep = found >= 0
            of, found = of[keep], found[keep]
        return of, found, rows[~answered]

    def __getitem__(self, key: str) -> MemoryRecord:
        before = self._made.get(key, _ABSENT)
        if before is _ABSENT:
            self._mark(key)
        value = super().__getitem__(key)
        if before is _ABSENT:
            if key not in self._set:
                self._read[key] = None
        else:
            try:
                self._read.move_to_end(key)
            except KeyError:  # set, or trimmed by another thread meanwhile
                pass
        return value

    def __setitem__(self, key: str, value: MemoryRecord) -> None:
        self._set.add(key)
        self._mark(key)
        self._read.pop(key, None)
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self._set.add(key)
        self._mark(key)
        self._read.pop(key, None)
        super().__delitem__(key)

    def trim(self, keep: int) -> int:
        """Drop the records made only to be read, beyond the ``keep`` read last; returns
        how many were dropped."""
        dropped = 0
        while len(self._read) > keep:
            key, _ = self._read.popitem(last=False)
            if key not in self._set:
                self._made.pop(key, None)
                at = self._position.get(key)
                if at is not None and key not in self._made:  # not made again meanwhile
                    self._made_rows[at] = False
                dropped += 1
        return dropped


def _seqs(view: NamespaceView) -> np.ndarray:
    records = view.records
    if isinstance(records, RecordDict):
        seqs = np.zeros(len(view._ids), dtype=np.int64)
        seqs[:len(records.seqs)] = records.seqs
        for record in records._made.values():
            if isinstance(record, MemoryRecord):
                seqs[record.row] = record.seq
        return seqs
    return np.fromiter((int(records[mid].seq) for mid in view._ids), dtype=np.int64,
                       count=len(view._ids))


# -- the view ------------------------------------------------------------------------------

def save_view(directory: Path, view: NamespaceView) -> dict:
    """Write the view's columns; returns the rest of its state (small)."""
    for name, (encode, _) in VIEW_JSON.items():
        _save_json_dict(directory, f"view.{name}", getattr(view, name), encode,
                        keys=view._ids if name == "records" else None)
    np.save(directory / "view.seqs.npy", _seqs(view), allow_pickle=False)
    for name in VIEW_ROWS:
        _save_rows(directory, f"view.{name}", getattr(view, name))
    if view._coarse is not None:
        np.save(directory / "view.ivf.npy", view._coarse.to_bytes(), allow_pickle=False)
    for name, column in view._columns.arrays(len(view._ids)).items():
        np.save(directory / f"view.row.{name}.npy", column, allow_pickle=False)
    offsets, siblings, unheld = _sibling_columns(view)
    np.save(directory / SIBLING_FILES[0], offsets, allow_pickle=False)
    np.save(directory / SIBLING_FILES[1], siblings, allow_pickle=False)
    (directory / SIBLING_FILES[2]).write_text(json.dumps(unheld))
    skip = {*VIEW_JSON, *VIEW_ROWS, *VIEW_DERIVED, *VIEW_UNSAVED, "_columns"}
    return {k: v for k, v in view.__dict__.items() if k not in skip}


def load_view(directory: Path, view: NamespaceView, small: dict) -> None:
    view.__dict__.update(small)
    for name, (_, decode) in VIEW_JSON.items():
        kind = RecordDict if name == "records" else LazyDict
        # the records are read at random (a recall's hits): mapped at once
        setattr(view, name, _load_json_dict(directory, f"view.{name}", decode, kind,
                                            populate=name == "records"))
    records = view.records
    assert isinstance(records, RecordDict)
    view._ids = IdList(records._base)  # the same tuple: not copied
    records.seqs = load_array(directory / "view.seqs.npy")
    if len(view._ids) != len(records.seqs):
        raise ValueError("records and sequence column disagree")
    view._positions = records._position  # keys in row order: a position is a row
    view._columns = RowColumns.of({name: load_array(directory / f"view.row.{name}.npy",
                                                    populate=True)
                                   for name in RowColumns.NAMES})
    if len(view._columns.t) != len(view._ids):
        raise ValueError("records and row columns disagree")
    for name in VIEW_ROWS:
        setattr(view, name, _load_rows(directory, f"view.{name}"))
    if all((directory / name).exists() for name in SIBLING_FILES):
        offsets, siblings = (load_array(directory / name) for name in SIBLING_FILES[:2])
        unheld = json.loads((directory / SIBLING_FILES[2]).read_text())
        if len(offsets) != len(view._ids) + 1 or len(siblings) != offsets[-1] or \
                (len(siblings) and int(siblings.max()) >= len(view._ids) + len(unheld)):
            raise ValueError("records and sibling columns disagree")
        records.siblings = (offsets, siblings, unheld)
    else:  # saved by an earlier release (or by one, after this one): made once here,
        # not by every recall that reads siblings until the snapshot is saved again
        records.siblings = _siblings_of_saved_records(view, records)
        records.siblings_made = True
    view._saved_sibling_rows = records.saved_sibling_rows
    ids = view._ids
    agents = list(view._owned)
    if (directory / "view.ivf.npy").exists():
        view._coarse = CoarseIndex.from_bytes(load_array(directory / "view.ivf.npy"))
    view._owned_ids = LazyDict(  # type: ignore[assignment]
        agents, lambda i: id_set(ids.at(view._owned[agents[i]])))


def _siblings_of_saved_records(view: NamespaceView, records: RecordDict
                               ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The sibling columns (as `_sibling_columns` writes them) of a snapshot saved
    without them, read off the saved records of the linked rows without making them
    (0.7 s at 100,000 memories)."""
    n, position, source = len(view._ids), records._position, records._source
    if source is None:
        raise ValueError("records loaded without their saved encoding")
    raw = source.raw
    unheld: dict[str, int] = {}
    linked = np.flatnonzero(np.asarray(view._columns.linked[:n], dtype=bool))
    counts = np.zeros(n, dtype=np.int64)
    found: list[int] = []
    for row in linked.tolist():
        ids = json.loads(raw(row))["affiliated"]
        found.extend(sorted(position[x] if x in position else n + unheld.setdefault(x, len(unheld))
                            for x in ids))
        counts[row] = len(ids)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return offsets, np.array(found, dtype=np.int64), list(unheld)


def _sibling_columns(view: NamespaceView) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Every row's AFFILIATED siblings: (offsets, n + 1 of them; the siblings, each a
    row, or n + i for the i-th of the ids the view does not hold; those ids). Read off
    the records the view holds in memory, and for the others off the snapshot's columns
    it was restored from (made on load if that snapshot had none)."""
    n = len(view._ids)
    records = view.records
    saved = records.siblings if isinstance(records, RecordDict) else None
    offsets, targets, extra = saved if saved is not None else \
        (np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int64), [])
    kept = len(offsets) - 1  # rows the saved columns cover
    unheld: dict[str, int] = {}

    def position(memory_id: str) -> int:
        if memory_id in records:
            return view.row_of(memory_id)
        return n + unheld.setdefault(memory_id, len(unheld))

    in_memory = np.zeros(n, dtype=bool)
    if isinstance(records, RecordDict):
        made = [r.row for r in records._made.values() if isinstance(r, MemoryRecord)]
        in_memory[np.array(made, dtype=np.int64)] = True
    else:
        in_memory[:] = True
    sources = np.repeat(np.arange(kept, dtype=np.int64), np.diff(offsets))
    keep = ~in_memory[sources]
    sources, targets = sources[keep], np.asarray(targets, dtype=np.int64)[keep]
    if extra:  # the ids the saved view did not hold: held now, or still not
        moved = np.array([position(x) for x in extra], dtype=np.int64)
        beyond = targets >= kept
        targets[beyond] = moved[targets[beyond] - kept]
    parts_from, parts_to = [sources], [targets]
    reread = np.asarray(view._columns.linked[:n], dtype=bool).copy()
    reread[:kept] &= in_memory[:kept]
    for row in np.flatnonzero(reread).tolist():
        found = sorted(position(x) for x in records[view._ids[row]].affiliated)
        parts_from.append(np.full(len(found), row, dtype=np.int64))
        parts_to.append(np.array(found, dtype=np.int64))
    source = np.concatenate(parts_from)
    order = np.argsort(source, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(np.bincount(source, minlength=n))]).astype(np.int64)
    return offsets, np.concatenate(parts_to)[order], list(unheld)


def _save_rows(directory: Path, name: str, rows: dict[str, array]) -> None:
    agents = list(rows)
    sizes = [len(rows[a]) for a in agents]
    offsets = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
    flat = np.concatenate([np.array(rows[a], dtype=np.int64) for a in agents] or
                          [np.empty(0, dtype=np.int64)])
    (directory / f"{name}.keys.json").write_text(json.dumps(agents))
    np.save(directory / f"{name}.off.npy", offsets, allow_pickle=False)
    np.save(directory / f"{name}.rows.npy", flat, allow_pickle=False)


def _load_rows(directory: Path, name: str) -> dict[str, array]:
    agents = json.loads((directory / f"{name}.keys.json").read_text())
    offsets = load_array(directory / f"{name}.off.npy")
    flat = load_array(directory / f"{name}.rows.npy").astype(np.int64, copy=False)
    return {a: row_list(flat[offsets[i]:offsets[i + 1]].tobytes())
            for i, a in enumerate(agents)}


def _save_json_dict(directory: Path, name: str, mapping, encode,
                    keys: Sequence[str] | None = None) -> None:
    keys = list(mapping if keys is None else keys)
    if len(keys) != len(mapping):
        raise ValueError(f"{name}: keys and values disagree")
    (directory / f"{name}.keys.json").write_text(json.dumps(keys))
    saved = mapping._source if isinstance(mapping, LazyDict) else None
    if saved is not None:  # the values not read since are copied as they were saved
        copy_json_column(directory, name, saved, mapping.saved_positions(keys),
                         lambda i: encode(mapping[keys[i]]))
    else:
        write_json_column(directory, name, (encode(mapping[k]) for k in keys))


def _load_json_dict(directory: Path, name: str, decode, kind=LazyDict,
                    like: Any = None, populate: bool = False) -> LazyDict:
    keys = json.loads((directory / f"{name}.keys.json").read_text())
    column = read_json_column(directory, name, populate=populate)
    if len(column) != len(keys):
        raise ValueError(f"{name}: keys and values disagree")
    return kind(keys, lambda i: decode(column[i]), source=column, like=like)


# -- the text index ------------------------------------------------------------------------

def save_text(directory: Path, text_index: TextIndex) -> dict:
    for name, (encode, _) in TEXT_JSON.items():
        _save_json_dict(directory, f"text.{name}", getattr(text_index, name), encode)
    small: dict[str, Any] = {k: v for k, v in text_index.__dict__.items()
                             if k not in TEXT_JSON and k not in BM25_INDEXES
                             and k not in TEXT_DERIVED and k != VOCABULARY}
    for name in BM25_INDEXES:
        small[name] = _save_bm25(directory, f"text.{name}", getattr(text_index, name))
    save_vocabulary(directory, *text_index.vocabulary.state())
    return small


def load_text(directory: Path, text_index: TextIndex, small: dict, like: Any = None) -> None:
    """Load the text index; ``like`` is a dict of the same keys to share a table with."""
    text_index.__dict__.update({k: v for k, v in small.items() if k not in BM25_INDEXES})
    for name, (_, decode) in TEXT_JSON.items():
        setattr(text_index, name, _load_json_dict(directory, f"text.{name}", decode, like=like))
    for name in BM25_INDEXES:
        setattr(text_index, name, _load_bm25(directory, f"text.{name}", small[name]))
    words = json.loads((directory / f"{VOCABULARY_FILE}.json").read_text())
    text_index.vocabulary = Vocabulary.restored(
        words["embedded"], words["waiting"], load_array(directory / f"{VOCABULARY_FILE}.npy"))


def save_vocabulary(directory: Path, words: list[str], waiting: list[str],
                    vectors: np.ndarray) -> None:
    """A text index's vocabulary: its words (embedded, then waiting) as JSON, the
    embedded ones' vectors as an array, each file landing whole (`land`)."""
    land(directory / f"{VOCABULARY_FILE}.npy",
         lambda h: np.save(h, np.asarray(vectors, dtype=np.float32), allow_pickle=False))
    land(directory / f"{VOCABULARY_FILE}.json",
         lambda h: h.write(json.dumps({"embedded": words, "waiting": waiting}).encode()))


def land(target: Path, write: Callable[[BinaryIO], object]) -> None:
    """``target`` written aside by ``write``, then renamed over it: a process reading the
    directory meanwhile (or writing the same file) sees the whole file or the one before."""
    aside = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with open(aside, "wb") as handle:
        write(handle)
    os.replace(aside, target)


def _save_bm25(directory: Path, name: str, index: BM25Index) -> dict:
    n = len(index._ids)
    (directory / f"{name}.ids.json").write_text(json.dumps(list(index._ids)))
    np.save(directory / f"{name}.lengths.npy", index._lengths[:n], allow_pickle=False)
    np.save(directory / f"{name}.live.npy", index._live[:n], allow_pickle=False)
    np.save(directory / f"{name}.keys.npy", index._keys[:n], allow_pickle=False)
    # a row's terms as they were saved, unless read since (a snapshot's are made on first
    # read and kept: making every row's here kept 0.5 GB more after a save at a million)
    terms_of = index._terms_of
    if isinstance(terms_of, LazyList) and terms_of._source is not None:
        copy_json_column(directory, f"{name}.terms_of", terms_of._source,
                         terms_of.saved_positions()[:n], lambda i: list(terms_of[i]))
    else:
        write_json_column(directory, f"{name}.terms_of", (list(terms_of[i]) for i in range(n)))
    terms = list(index._postings)
    postings = [index._postings[t] for t in terms]
    offsets = np.concatenate([[0], np.cumsum([p.size for p in postings], dtype=np.int64)])
    (directory / f"{name}.terms.json").write_text(json.dumps(terms))
    np.save(directory / f"{name}.post.off.npy", offsets.astype(np.int64), allow_pickle=False)
    for part, dtype in (("slots", np.int64), ("tfs", np.float64)):
        flat = (np.concatenate([getattr(p, part)[:p.size] for p in postings], dtype=dtype)
                if postings else np.empty(0, dtype=dtype))
        np.save(directory / f"{name}.post.{part}.npy", flat, allow_pickle=False)
    return {"k1": index.k1, "b": index.b, "_df": dict(index._df),
            "_total_length": float(index._total_length)}


def _load_bm25(directory: Path, name: str, small: dict) -> BM25Index:
    index = BM25Index(k1=small["k1"], b=small["b"])
    index._df = small["_df"]
    index._total_length = small["_total_length"]
    index._ids = IdList(json.loads((directory / f"{name}.ids.json").read_text()))
    index._lengths = load_array(directory / f"{name}.lengths.npy")
    index._live = load_array(directory / f"{name}.live.npy")
    index._keys = load_array(directory / f"{name}.keys.npy")
    n = len(index._ids)
    if len(index._lengths) != n or len(index._live) != n or len(index._keys) != n:
        raise ValueError(f"{name}: columns of different lengths")
    index._slot_of = {doc: slot for doc, slot, live in
                      zip(index._ids, range(n), index._live.tolist()) if live}
    keyed = np.flatnonzero(index._live & (index._keys != NO_KEY))
    index._slot_of_key = np.full(int(index._keys.max(initial=-1)) + 1, NO_SLOT, dtype=np.int32)
    index._slot_of_key[index._keys[keyed]] = keyed
    terms_of = read_json_column(directory, f"{name}.terms_of")
    index._terms_of = LazyList(  # type: ignore[assignment]
        n, lambda i: tuple(terms_of[i]), source=terms_of)
    terms = json.loads((directory / f"{name}.terms.json").read_text())
    offsets = load_array(directory / f"{name}.post.off.npy")
    slots = load_array(directory / f"{name}.post.slots.npy")
    tfs = load_array(directory / f"{name}.post.tfs.npy")
    index._postings = LazyDict(  # type: ignore[assignment]
        terms, lambda i: _postings(slots[offsets[i]:offsets[i + 1]],
                                   tfs[offsets[i]:offsets[i + 1]]))
    return index


def _postings(slots: np.ndarray, tfs: np.ndarray) -> _Postings:
    """One term's postings over the mapped arrays: full, so its next append copies."""
    postings = _Postings.__new__(_Postings)
    postings.slots, postings.tfs, postings.size = slots, tfs, len(slots)
    return postings

"""Snapshots of earlier layouts, brought to this one in place.

Three layouts ago a snapshot had no row columns (`graphmem.view_rows`: forgotten, time,
has-siblings); two layouts ago its BM25 indexes had no document keys (each document's
view row, by which a search among an owner's memories filters postings); one layout ago
its text index had no vocabulary (`graphmem.retrieval.vocabulary`, read by the expand
channel); and until the twenty-sixth session the view's timelines (`_arcs`) ordered the
memories of one time by id, where `_timelines` orders them by when they were recorded
(`graphmem.view.arc_key`). A snapshot that lacks any of them would otherwise be ignored:
the first process after an upgrade would read the whole store again (23 minutes at a
million memories here). A snapshot whose layout differs from this release's by those
alone gets them from its own columns instead (the row columns from its records, about
5 s at a million; the keys from its ids, 0.9 s; the vocabulary from its wordings, its
words embedded by the first question that reads them; the timelines from the old ones
and the records' times of recording). Any other difference is not upgraded: the snapshot
is ignored, as before. Imports graphmem.view, graphmem.view_rows,
graphmem.retrieval.vocabulary and the snapshot's column files.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np

from graphmem.retrieval.vocabulary import Vocabulary
from graphmem.view import arc_key
from graphmem.view_rows import RowColumns
from graphmem.view_snapshot.columns import VOCABULARY, land, save_vocabulary
from graphmem.view_snapshot.lazy import read_json_column, write_json_column

#: the view attributes the row columns added: the columns and their row lookup
ADDED = frozenset({"_columns", "_positions"})
#: the BM25 attributes the document keys added: each slot's key and each key's slot
BM25_ADDED = frozenset({"_keys", "_slot_of_key"})
#: the view's timelines: ordered by (t, id) before, by `arc_key` now
OLD_TIMELINES, TIMELINES = "_arcs", "_timelines"
#: the text indexes whose BM25 documents are keyed, as the snapshot names their files
TEXT_INDEXES = ("text.index", "text.words")


def steps(saved: dict | None, current: dict) -> list[Callable[[Path], int]]:
    """What turns a snapshot of layout ``saved`` into ``current`` (each step writes its
    files and returns the rows it wrote), in order; empty if nothing can."""
    if not isinstance(saved, dict) or not isinstance(saved.get("view"), list) \
            or not isinstance(saved.get("bm25"), list):
        return []
    view, bm25 = set(saved["view"]), set(saved["bm25"])
    found: list[Callable[[Path], int]] = []
    if not view & ADDED:
        found.append(add_row_columns)
        view |= ADDED
    if not bm25 & BM25_ADDED:
        found.append(add_document_keys)
        bm25 |= BM25_ADDED
    if OLD_TIMELINES in view and TIMELINES not in view:
        found.append(add_timelines)
        view = (view - {OLD_TIMELINES}) | {TIMELINES}
    text = set(saved.get("text_index") or ())
    if text and VOCABULARY not in text:
        found.append(add_vocabulary)
        text.add(VOCABULARY)
    if {**saved, "view": sorted(view), "bm25": sorted(bm25),
            **({"text_index": sorted(text)} if text else {})} != current:
        return []
    return found


def add_row_columns(directory: Path) -> int:
    """Write the row columns from the records column; returns the rows written. Each
    file lands whole (written aside, then renamed), so a process reading meanwhile, or
    upgrading the same snapshot at the same time, sees the file or none."""
    records = read_json_column(directory, "view.records")
    n = len(records)
    columns = RowColumns(n)
    for row in range(n):
        record = records[row]
        columns.note(row, forgotten=bool(record["forgotten"]), t=record["t"],
                     linked=bool(record["affiliated"]))
    for name, values in columns.arrays(n).items():
        _write(directory / f"view.row.{name}.npy", values)
    return n


def add_document_keys(directory: Path) -> int:
    """Write each text index document's key: the view row of the memory whose id it
    bears (a memory's second documents, ``id#n``, bear none); returns the documents
    keyed. A snapshot without a text index (a custom tokenizer) has nothing to key."""
    ids = json.loads((directory / "view.records.keys.json").read_text())
    row_of = {memory_id: row for row, memory_id in enumerate(ids)}
    keyed = 0
    for name in TEXT_INDEXES:
        if not (directory / f"{name}.ids.json").exists():
            continue
        documents = json.loads((directory / f"{name}.ids.json").read_text())
        keys = np.fromiter((row_of.get(d, -1) for d in documents), dtype=np.int32,
                           count=len(documents))
        _write(directory / f"{name}.keys.npy", keys)
        keyed += len(documents)
    return keyed


def add_timelines(directory: Path) -> int:
    """Write the view's timelines in `arc_key` order from the old ones (``(t, id)``
    items) and the records' times of recording; returns the memories placed. The old
    column stays (nothing reads it); each new file lands whole."""
    ids = json.loads((directory / "view.records.keys.json").read_text())
    records = read_json_column(directory, "view.records")
    recorded = {memory_id: records[row].get("recorded_at")
                for row, memory_id in enumerate(ids)}
    entities = json.loads((directory / f"view.{OLD_TIMELINES}.keys.json").read_text())
    old = read_json_column(directory, f"view.{OLD_TIMELINES}")
    timelines = [sorted(list(arc_key(t, recorded.get(mid), mid)) for t, mid in old[i])
                 for i in range(len(entities))]
    name = f"view.{TIMELINES}"
    aside = directory / f".{name}.{os.getpid()}"
    aside.mkdir(exist_ok=True)
    try:
        write_json_column(aside, name, timelines)
        (aside / f"{name}.keys.json").write_text(json.dumps(entities))
        for part in (f"{name}.bin", f"{name}.off.npy", f"{name}.keys.json"):
            os.replace(aside / part, directory / part)
    finally:
        shutil.rmtree(aside, ignore_errors=True)
    return sum(len(arc) for arc in timelines)


def _write(target: Path, values: np.ndarray) -> None:
    """``values`` as ``target``, landing whole."""
    land(target, lambda handle: np.save(handle, values, allow_pickle=False))


def add_vocabulary(directory: Path) -> int:
    """Write the text index's vocabulary from its wordings (``text._words_of``), every
    word waiting to be embedded (by the first question that reads it); returns the
    words. A snapshot without a text index has none to write."""
    if not (directory / "text._words_of.keys.json").exists():
        return 0
    wordings = read_json_column(directory, "text._words_of")
    vocabulary = Vocabulary()
    for i in range(len(wordings)):
        vocabulary.note(wordings[i])
    save_vocabulary(directory, [], vocabulary.waiting, np.zeros((0, 0), dtype=np.float32))
    return len(vocabulary)

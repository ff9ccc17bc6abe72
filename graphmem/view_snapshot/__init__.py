"""View snapshots on disk: the first recall after opening a store without reading it all.

A namespace view (vectors, owners, entities, timelines) and its text index take about
50 s to build from the store at 100,000 memories: the store sends every embedding float
as its own reply element. A snapshot keeps them on disk as columns (`.columns`): the
vectors and every per-memory structure are mapped from files and a record is made only
when read (`.lazy`), so opening one costs about the same at 10k or 100k memories. The
view is then caught up with ``changed_since`` like any other view.

    save(directory, view, text_index, fp)       write a snapshot (atomically: a temp dir
                                                renamed over the old one)
    load(directory, ns, fp_now, probe)          the (view, text index) of a valid snapshot,
                                                or None with the reason logged
    fingerprint(store, queries, ns)             what a snapshot must match
    incomplete(view)                            restored from a snapshot an earlier
                                                release wrote: save it again

A snapshot is used only if all of these hold, else it is ignored (never half used):

- its format is `FORMAT` and graphmem's view classes have not changed shape (the class
  layout is part of the format check);
- the store is the same: the same schema steps, applied at the same moment (a store's
  first schema step is its birth), and the namespace has the same ``created_at`` (a
  dropped and recreated namespace starts a new lineage, even at the same version);
- the namespace's version now is at least the snapshot's, and the memory the snapshot
  saw written last still exists at that sequence or later (a store restored from an
  older backup and written again has another history under the same versions).

The columns are ``.npy`` arrays (read without pickles) and JSON; the small rest (the
entity resolver, per-place latest memories, BM25's document counts) is a pickle, read by
an unpickler that accepts only the classes it is made of (no code runs on load). It lives in the store's own data directory by
default, which must be as private as the store. Owns only this file format; imports
graphmem.view and graphmem.retrieval, and nothing imports it but graphmem.views.
"""

from __future__ import annotations

import io
import json
import logging
import os
import pickle
import re
import shutil
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from graphmem.retrieval.bm25 import DERIVED as BM25_DERIVED, BM25Index
from graphmem.retrieval import preferences as preference_rules
from graphmem.retrieval.text_index import DERIVED as TEXT_DERIVED, TextIndex
from graphmem.store.processes import pid_alive
from graphmem.view import MemoryRecord, NamespaceView
from graphmem.view_snapshot import columns as snapshot_columns
from graphmem.view_snapshot import upgrade as snapshot_upgrade
from graphmem.view_snapshot.lazy import load_array

__all__ = ["FORMAT", "Fingerprint", "fingerprint", "incomplete", "keep", "load", "restore",
           "remove_abandoned", "save", "snapshot_dir", "trim", "worth_saving_now"]

log = logging.getLogger(__name__)

FORMAT = 3  # 3: the vector index is faiss's serialisation
#: a sync that reads at least this many memories (new or changed) writes the snapshot
#: afterwards (the first read of a large namespace, or a catch-up after many writes
#: elsewhere), and so does closing a handle that read as many since the snapshot it
#: started from: each process catches up with at most about this many (a few seconds at
#: a million memories). Writing 100k memories' state costs a few seconds, so it is not
#: done after every recall.
SAVE_AFTER_ROWS = 5000
#: a sync saves on the request path only if it also read this share of the view's rows:
#: writing a snapshot costs about as much as reading a sixteenth of its rows in a
#: catch-up (100,000 memories after 3,000 remembers: 5.0 s to save 103,000 rows, 4.5 s
#: to read the 5,299 that changed), so such a save at most doubles the recall that waits
#: for it. A shorter catch-up is saved on close, like any `SAVE_AFTER_ROWS` read since.
SAVE_IN_SYNC_SHARE = 1 / 16
#: records a restored view keeps after making them only to read them (each 1-2 KB and
#: about eight objects the garbage collector walks); the others are made again from the
#: snapshot when next read. A recall makes the records of its hits and a few more.
READ_RECORDS_KEPT = 10_000
STATE_FILE, VECTORS_FILE, META_FILE = "state.pkl", "vectors.npy", "meta.json"
#: the classes a snapshot's state may hold; anything else makes the load fail
_ALLOWED = {
    ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "dict"), ("builtins", "list"),
    ("builtins", "tuple"), ("collections", "OrderedDict"), ("collections", "defaultdict"),
    ("graphmem.text.entity_resolution", "Entity"), ("graphmem.text.entity_resolution", "Merge"),
    ("graphmem.text.entity_resolution", "EntityResolver"),
}
# view attributes rebuilt on load rather than saved
_VIEW_SKIP = (*snapshot_columns.VIEW_UNSAVED, "_training")


@dataclass(frozen=True)
class Fingerprint:
    """What identifies a namespace's history in one store."""
    steps: tuple[str, ...]
    born: int | None
    epoch: str | None
    created_at: int | None
    version: int

    def same_lineage(self, other: "Fingerprint") -> bool:
        return (self.steps, self.born, self.epoch, self.created_at) == \
            (other.steps, other.born, other.epoch, other.created_at)


def fingerprint(store, queries, ns: str) -> Fingerprint:
    """The store's and the namespace's identity now."""
    row = store.read(queries["snapshot/fingerprint"], {"ns": ns})[0]
    return Fingerprint(tuple(row["steps"] or ()), row["born"], row.get("epoch"),
                       row["created_at"], int(row["version"] or 0))


def snapshot_dir(store, ns: str) -> Path | None:
    """Where ``ns``'s snapshot lives: ``GRAPHMEM_SNAPSHOT_DIR``/<ns>, else inside an
    embedded store's data directory; None (no snapshots) for a remote store without it,
    or when ``GRAPHMEM_VIEW_SNAPSHOTS=0``."""
    if os.environ.get("GRAPHMEM_VIEW_SNAPSHOTS", "1") == "0":
        return None
    root = os.environ.get("GRAPHMEM_SNAPSHOT_DIR")
    if root:
        base = Path(root)
    else:
        server = getattr(store, "server", None)
        if server is None or getattr(server, "data_dir", None) is None:
            return None
        base = Path(server.data_dir) / "view-snapshots"
    safe = "".join(c if c.isalnum() or c in "_.-" else "-" for c in ns)[:120]
    return base / f"{safe}-{zlib.crc32(ns.encode()):08x}"


def restore(store, queries, ns: str) -> tuple[Any, Any] | None:
    """The views' hook on first use of ``ns``: its snapshot's (view, text index) if one
    is valid for this store, else None (the view is then read from the store)."""
    directory = snapshot_dir(store, ns)
    if directory is None or not directory.exists():
        return None
    now = fingerprint(store, queries, ns)

    def probe(memory_id: str) -> int | None:
        rows = store.read(queries["snapshot/probe"], {"ns": ns, "id": memory_id})
        return rows[0]["seq"] if rows else None

    return load(directory, ns, now, probe)


def keep(store, queries, view, text_index) -> None:
    """The views' hook after a sync that read much: write the snapshot of ``view``."""
    directory = snapshot_dir(store, view.ns)
    if directory is None or len(view) == 0:
        return
    try:
        save(directory, view, text_index, fingerprint(store, queries, view.ns))
    except Exception as exc:  # noqa: BLE001 - a cache that cannot be written costs
        # speed, never data, and must not stop a close
        log.warning("view snapshot %s not written: %s", directory, exc)


def _layout() -> dict:
    """The attribute names of the saved classes and the digest of the rules that read
    preferences and constraints: a changed class or rule invalidates snapshots."""
    empty = NamespaceView("layout")
    return {"view": sorted(k for k in empty.__dict__ if k not in _VIEW_SKIP),
            "bm25": sorted(k for k in BM25Index().__dict__ if k not in BM25_DERIVED),
            "record": sorted(MemoryRecord.__dataclass_fields__),
            "text_index": sorted(k for k in TextIndex(empty).__dict__ if k not in TEXT_DERIVED),
            "text_rules": preference_rules.RULES}


def worth_saving_now(read: int, rows: int) -> bool:
    """Whether a sync that read ``read`` memories of a view of ``rows`` writes the
    snapshot at once (`SAVE_AFTER_ROWS`, `SAVE_IN_SYNC_SHARE`)."""
    return read >= max(SAVE_AFTER_ROWS, SAVE_IN_SYNC_SHARE * rows)


def room(n: int) -> int:
    """Rows saved empty after a snapshot's ``n`` vectors: the restored view writes its new
    memories' vectors there (the map is copy-on-write, so a new row costs its own page),
    instead of copying every vector into a larger matrix at its first write (4.5 GB
    of private memory at a million)."""
    return max(1024, n // 16)


def _save_with_room(path: Path, matrix: np.ndarray, n: int) -> None:
    """``matrix[:n]`` as an ``.npy`` of ``n`` + `room` rows, written a block at a time and
    the room left as a hole of zeros. Written, not mapped: every page of a mapped output
    counted in the process's resident memory until it closed (1.5 GB more at a million)."""
    header = {"descr": np.lib.format.dtype_to_descr(matrix.dtype), "fortran_order": False,
              "shape": (n + room(n), matrix.shape[1])}
    with open(path, "wb") as handle:
        np.lib.format.write_array_header_1_0(handle, header)
        for lo in range(0, n, 65536):
            np.ascontiguousarray(matrix[lo:min(n, lo + 65536)]).tofile(handle)
        handle.truncate(handle.tell() + room(n) * matrix.shape[1] * matrix.dtype.itemsize)


def save(directory: Path, view, text_index, fp: Fingerprint) -> None:
    """Write ``view`` (and ``text_index`` if not None) as the snapshot in ``directory``."""
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    remove_abandoned(directory)
    tmp = directory.with_name(f".{directory.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    n = len(view)
    # no half-precision copy: the releases that read one (before 2026-12-03) cannot use
    # a snapshot of this layout (its text index has a vocabulary) whatever it holds
    _save_with_room(tmp / VECTORS_FILE, view._matrix, n)
    if text_index is not None and not snapshot_columns.savable(text_index):
        text_index = None  # a custom tokenizer: the index is rebuilt from the view
    state = {"view": snapshot_columns.save_view(tmp, view),
             "text": None if text_index is None else snapshot_columns.save_text(tmp, text_index)}
    with open(tmp / STATE_FILE, "wb") as handle:
        pickle.dump(state, handle, protocol=5)
    last = snapshot_columns.last_written(view)
    meta = {"format": FORMAT, "layout": _layout(), "ns": view.ns, "rows": n,
            "version": view.version, "steps": list(fp.steps), "born": fp.born,
            "epoch": fp.epoch, "created_at": fp.created_at,
            "probe": None if last is None else {"id": last[0], "seq": last[1]},
            "saved_at": time.time()}
    (tmp / META_FILE).write_text(json.dumps(meta))
    old = directory.with_name(f".{directory.name}.{os.getpid()}.old")
    if directory.exists():
        directory.rename(old)
    tmp.rename(directory)
    shutil.rmtree(old, ignore_errors=True)


def remove_abandoned(directory: Path) -> list[Path]:
    """Remove what processes killed while they saved ``directory``'s snapshot left beside
    it (``.NAME.PID.tmp``, ``.NAME.PID.old``; at a million memories 1.7 GB each), and
    return it. A live process's are left: it may be saving now."""
    pattern = re.compile(rf"\.{re.escape(directory.name)}\.(\d+)\.(?:tmp|old)")
    removed = []
    for path in directory.parent.iterdir():
        match = pattern.fullmatch(path.name)
        if match and int(match.group(1)) != os.getpid() and not pid_alive(int(match.group(1))):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def load(directory: Path, ns: str, now: Fingerprint,
         probe: Callable[[str], int | None]) -> tuple[Any, Any] | None:
    """The (view, text index or None) of the snapshot in ``directory`` if it is valid for
    ``ns`` at fingerprint ``now``; ``probe(memory id)`` gives a memory's seq in the store
    (None if gone). The view still needs a sync to catch up."""
    _upgrade(Path(directory))
    reason = _invalid(Path(directory), ns, now, probe)
    if reason:
        log.info("view snapshot %s not used: %s", directory, reason)
        return None
    try:
        return _restore(Path(directory), ns)
    except Exception as exc:  # noqa: BLE001 - a damaged cache is ignored, never fatal
        log.warning("view snapshot %s not used: unreadable (%s)", directory, exc)
        return None


def _upgrade(directory: Path) -> None:
    """A snapshot of an earlier layout gains what this one added (`.upgrade`); one that
    cannot is left as it is (and then ignored as another version's)."""
    try:
        meta = json.loads((directory / META_FILE).read_text())
    except (OSError, ValueError):
        return
    layout = _layout()
    steps = snapshot_upgrade.steps(meta.get("layout"), layout)
    if meta.get("format") != FORMAT or not steps:
        return
    try:
        rows = [step(directory) for step in steps]
        aside = directory / f".{META_FILE}.{os.getpid()}.tmp"
        aside.write_text(json.dumps({**meta, "layout": layout}))
        os.replace(aside, directory / META_FILE)
    except Exception as exc:  # noqa: BLE001 - a cache that cannot be upgraded is re-read
        log.warning("view snapshot %s not upgraded: %s", directory, exc)
        return
    log.info("view snapshot %s upgraded: %s", directory,
             ", ".join(f"{step.__name__} ({n} rows)" for step, n in zip(steps, rows)))


def _invalid(directory: Path, ns: str, now: Fingerprint, probe) -> str:
    try:
        meta = json.loads((directory / META_FILE).read_text())
    except (OSError, ValueError):
        return "no snapshot"
    saved = Fingerprint(tuple(meta.get("steps") or ()), meta.get("born"), meta.get("epoch"),
                        meta.get("created_at"), int(meta.get("version", -1)))
    if meta.get("format") != FORMAT or meta.get("layout") != _layout():
        return "written by another version of graphmem"
    if meta.get("ns") != ns:
        return f"of namespace {meta.get('ns')!r}"
    if not saved.same_lineage(now):
        return "of another store, schema or incarnation of the namespace"
    if saved.version > now.version:
        return f"newer (version {saved.version}) than the store (version {now.version})"
    last = meta.get("probe")
    if last is not None:
        seq = probe(last["id"])
        if seq is None or int(seq) < int(last["seq"]):
            return "its last memory is not in the store: another history"
    return ""


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a view snapshot")
        return super().find_class(module, name)


def _restore(directory: Path, ns: str) -> tuple[Any, Any]:
    with open(directory / STATE_FILE, "rb") as handle:
        state = _Unpickler(io.BufferedReader(handle)).load()
    view = NamespaceView(ns)
    snapshot_columns.load_view(directory, view, state["view"])
    view._matrix = load_array(directory / VECTORS_FILE, populate=True)  # rescored at random
    if view._matrix.dtype != np.float32 or len(view._matrix) < len(view):
        raise ValueError("vectors of another shape or type")
    text_index = None
    if state["text"] is not None:
        text_index = TextIndex.__new__(TextIndex)
        snapshot_columns.load_text(directory, text_index, state["text"], like=view.records)
        text_index.restore_rows(view)
        view._listeners.append(text_index._update)
    return view, text_index


def incomplete(view: NamespaceView) -> bool:
    """Whether ``view`` was restored from a snapshot that lacked columns this release
    writes (an earlier release saved it), made on load instead: save it again soon."""
    return getattr(view.records, "siblings_made", False)


def trim(view: NamespaceView) -> int:
    """Drop the records a restored view made only to read, beyond the
    `READ_RECORDS_KEPT` read last (a view read from the store holds all its records);
    returns how many were dropped."""
    records = view.records
    if isinstance(records, snapshot_columns.RecordDict):
        return records.trim(READ_RECORDS_KEPT)
    return 0

"""The in-process views of the namespaces one ``MemoryGraph`` has touched: each a
:class:`~graphmem.view.NamespaceView` caught up with the store on use, plus the BM25
index that follows it. They belong to the ``MemoryGraph`` that made them."""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, replace
from typing import Any, Callable, Collection, Mapping

from graphmem import view_snapshot
from graphmem.queries import Queries
from graphmem.retry import retry_moved_version
from graphmem.retrieval.text_index import TextIndex
from graphmem.store.base import Row, Store
from graphmem.view import NamespaceView


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class NamespaceState:
    """What the store says of a namespace right now."""

    version: int
    strict: bool
    epoch: str | None
    trust_policy: str | None = None  # JSON (graphmem.trust.policy); None: open
    decay: str | None = None  # JSON (graphmem.lifecycle.decay.DecaySettings); None: defaults
    #: the version of the last write that may have changed a trust profile (read by
    #: memory/recall_state only; None: none since the namespace was made)
    profiled: int | None = None
    #: how many times an agent of the namespace was registered (memory/register_agent;
    #: read by memory/recall_state and trust/agent_state; None: never)
    named: int | None = None


def state_of(row: Mapping[str, Any]) -> NamespaceState | None:
    """The namespace state in a row read with namespace_version's columns (None if the
    row has no namespace)."""
    if row.get("version") is None:
        return None
    return NamespaceState(int(row["version"]), bool(row["strict"]), row.get("epoch"),
                          row.get("trust_policy"), row.get("decay"), row.get("profiled"),
                          row.get("named"))


class Views:
    """The views and text indexes of the namespaces this handle has touched.

    Nothing about a namespace is trusted across calls but the view itself, and that only
    while the namespace's epoch is the one it was built from: strictness and the version
    are read from the store on each write and recall, so a ``drop_namespace`` or
    ``set_strict`` in another handle or process takes effect here at the next call.
    """

    def __init__(self, store: Store, queries: Queries) -> None:
        self.store = store
        self.queries = queries
        self._lock = threading.RLock()
        self._views: dict[str, NamespaceView] = {}
        self._epochs: dict[str, str | None] = {}  # ns -> epoch its view was built from
        self._text_indexes: dict[str, TextIndex] = {}
        self._saved_rows: dict[str, int] = {}  # ns -> rows of its view on disk
        self._unsaved: dict[str, int] = {}  # ns -> memories read since its snapshot
        self._saved_text: set[str] = set()  # namespaces whose snapshot has the text index
        # ns -> the vector index its snapshot holds (None: none), to save one trained since
        self._saved_vectors: dict[str, object] = {}
        # ns -> ((epoch, profiled) they were read at, agent -> its trust/trust_of row or
        # None where the agent was not stored)
        self._trust_rows: dict[str, tuple[tuple, dict[str, Row | None]]] = {}

    def state(self, ns: str) -> NamespaceState | None:
        """The namespace as stored now, or None if it does not exist."""
        rows = self.store.read(self.queries["memory/namespace_version"], {"ns": ns})
        return state_of(rows[0]) if rows else None

    def recall_state(self, ns: str, agent: str) -> tuple[NamespaceState | None, str | None]:
        """The namespace as stored now (None if it does not exist) and ``agent``'s task
        (None if it has none), read together: a recall's first round trip."""
        rows = self.store.read(self.queries["memory/recall_state"], {"ns": ns, "agent": agent})
        return (state_of(rows[0]), rows[0].get("task")) if rows else (None, None)

    def trust_rows(self, ns: str, state: NamespaceState | None,
                   agents: Collection[str]) -> dict[str, Row]:
        """The trust profiles (``trust/trust_of`` rows) of those of ``agents`` that are
        stored, read only for the agents not kept since ``state`` (as the caller just
        read it) last changed a profile: the namespace's epoch and ``profiled`` (each
        write that may change a profile moves it; so does a restore, by a new epoch)."""
        if state is None:
            return {}
        key = (state.epoch, state.profiled)
        with self._lock:
            kept_at, kept = self._trust_rows.get(ns, (None, {}))
            if kept_at != key:
                kept = {}
            missing = sorted(set(agents) - set(kept))
        if missing:
            rows = self.store.read(self.queries["trust/trust_of"], {"ns": ns, "agents": missing})
            read: dict[str, Row | None] = {a: None for a in missing}
            read.update({r["id"]: r for r in rows})
            with self._lock:
                kept_at, now = self._trust_rows.get(ns, (None, {}))
                kept = {**(now if kept_at == key else {}), **read}
                self._trust_rows[ns] = (key, kept)
        return {a: row for a in agents if (row := kept.get(a)) is not None}

    def ensure_namespace(self, ns: str, *, strict: bool = False) -> NamespaceState:
        """The namespace's state, creating it (``strict`` as given) if it is new."""
        current = self.state(ns)
        if current is not None:
            return current
        row = self.store.write(self.queries["memory/ensure_namespace"],
                               {"ns": ns, "strict": strict, "now": now_ms(),
                                "epoch": uuid.uuid4().hex})[0]
        return NamespaceState(int(row["version"]), bool(row["strict"]), row.get("epoch"),
                              row.get("trust_policy"))

    def guarded(self, ns: str, query: str, params: dict, *, sync: bool = True,
                attempts: int = 60,
                local: Callable[[NamespaceView, int, list], int] | None = None) -> list:
        """Run the named statement ``query`` guarded by the namespace version (it takes
        ns, expected, seq, now besides ``params``), retrying while other writers move
        the version; returns its rows. ``sync=False`` leaves catching the view up to the
        caller (a bulk rewrite that drops it after). ``local(view, seq, rows)``, if
        given, applies the statement's change to a view that was current before it (the
        guard proves nothing else was written in between), instead of reading back every
        memory it touched, and returns how many memories it changed (they count towards
        the view's next snapshot as memories read would); a view that was behind is
        caught up as usual."""
        def attempt(n: int) -> list | None:
            state = self.state(ns)
            version = state.version if state else 0
            rows = self.store.write(self.queries[query],
                                    {"ns": ns, "expected": version, "seq": version + 1,
                                     "now": now_ms(), **params})
            if not rows:
                return None
            if local is not None and self._apply_locally(ns, version, rows, local):
                self.store.note_version(ns, version + 1)
            elif sync and state is not None:  # the journal's note with the catch-up read
                self.synced(ns, state=replace(state, version=version + 1), note=True)
            else:
                self.store.note_version(ns, version + 1)
                if sync:
                    self.synced(ns)
            return rows

        return retry_moved_version(attempt, attempts=attempts, backoff_ms=2.0, what=query)

    def _apply_locally(self, ns: str, version: int, rows: list,
                       local: Callable[[NamespaceView, int, list], int]) -> bool:
        with self._lock:
            view = self._views.get(ns)
            if view is None or view.version != version:
                return False
            # a reclaim of a million memories changes them all here: unless the snapshot
            # is saved on close, the next process reads every one of them again
            self._unsaved[ns] = self._unsaved.get(ns, 0) + local(view, version + 1, rows)
            view.version = version + 1
            return True

    def forget_namespace(self, ns: str) -> None:
        """Drop what this handle cached of ``ns`` (after it was deleted or rebuilt)."""
        with self._lock:
            self._views.pop(ns, None)
            self._epochs.pop(ns, None)
            self._text_indexes.pop(ns, None)
            self._saved_rows.pop(ns, None)
            self._unsaved.pop(ns, None)
            self._saved_text.discard(ns)
            self._saved_vectors.pop(ns, None)
            self._trust_rows.pop(ns, None)

    def _view(self, ns: str) -> NamespaceView:
        with self._lock:
            if ns not in self._views:
                # a snapshot on disk, if one is valid for this store, saves reading the
                # whole namespace (it is then caught up like any view)
                restored = view_snapshot.restore(self.store, self.queries, ns)
                if restored is not None:
                    self._views[ns], text_index = restored
                    self._saved_rows[ns] = len(self._views[ns])
                    self._saved_vectors[ns] = self._views[ns]._coarse
                    if view_snapshot.incomplete(self._views[ns]):  # written on close
                        self._unsaved[ns] = view_snapshot.SAVE_AFTER_ROWS
                    if text_index is not None:
                        self._text_indexes[ns] = text_index
                        self._saved_text.add(ns)
            view = self._views.get(ns)
            if view is None:  # not setdefault: it would make a view (0.8 ms) every call
                view = self._views[ns] = NamespaceView(ns)
            return view

    def save_snapshots(self) -> None:
        """Write the snapshot of every view that read `SAVE_AFTER_ROWS` memories (new or
        changed) since it was restored or last saved, or whose text index or vector
        index was built after its snapshot was written (a first read saves the view
        before a recall builds the text index; the vector index is trained on a thread
        at the first search past `graphmem.vector_index.IVF_ABOVE`); called on close, so
        that the next process starts warm."""
        with self._lock:
            for ns, view in self._views.items():
                grew = self._unsaved.get(ns, 0) >= view_snapshot.SAVE_AFTER_ROWS
                trained = view._coarse is not None and ns in self._saved_rows \
                    and view._coarse is not self._saved_vectors.get(ns)
                indexed = ns in self._text_indexes and ns not in self._saved_text \
                    and ns in self._saved_rows
                if grew or indexed or trained:
                    self._save(ns, view)

    def _save(self, ns: str, view: NamespaceView) -> None:
        view_snapshot.keep(self.store, self.queries, view, self._text_indexes.get(ns))
        self._saved_rows[ns] = len(view)
        self._unsaved[ns] = 0
        self._saved_vectors[ns] = view._coarse
        if ns in self._text_indexes:
            self._saved_text.add(ns)

    def text_index(self, ns: str) -> TextIndex:
        """The BM25 index that follows the view of ``ns``."""
        with self._lock:
            view = self._view(ns)
            if ns not in self._text_indexes:
                self._text_indexes[ns] = TextIndex(view)
            return self._text_indexes[ns]

    def synced(self, ns: str, version: int | None = None, *,
               state: NamespaceState | None = None, note: bool = False) -> NamespaceView:
        """The view of ``ns``, caught up with the store (at ``version`` when the caller
        knows it, e.g. right after its own write; else the store is asked — or ``state``
        is what the caller just read from it — and a view of a namespace that was
        dropped or made anew since is rebuilt). ``note``: the caller's write just moved
        ``ns`` to ``version``; the journal notes it in the catch-up's round trip."""
        with self._lock:  # one catch-up at a time: a view is not built for racing syncs
            if version is None:
                state = state or self.state(ns)
                epoch = state.epoch if state else None
                if ns in self._epochs and self._epochs[ns] != epoch:
                    self.forget_namespace(ns)
                self._epochs[ns] = epoch
                version = state.version if state else 0
            view = self._view(ns)
            read = view.sync(self.store, self.queries, version, note=note)
            view_snapshot.trim(view)  # a long-running process does not make them all
            self._unsaved[ns] = self._unsaved.get(ns, 0) + read
            if view_snapshot.worth_saving_now(read, len(view)):
                self._save(ns, view)  # a long read: the next process need not repeat it
            return view

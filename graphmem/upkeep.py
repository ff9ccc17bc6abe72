"""Keeping a store whole, on ``MemoryGraph``: its status, the integrity check and the
repair after a damaged log (graphmem.integrity), rebuilding every vector with another
embedding model, reading again the claims kept with each memory, and setting the
timelines' NEXT edges to their order. A mixin of
:class:`graphmem.api.MemoryGraph`. May import graphmem.querying, graphmem.integrity,
graphmem.lifecycle (the curator's guarded writes), graphmem.writer (its claim
detector), graphmem.supersession (reclaim's upgrade), graphmem.views and the store
layer."""

from __future__ import annotations

import threading
from typing import Any, Callable

from graphmem.governance import one_at_a_time
from graphmem.retry import retry_moved_version
from graphmem.integrity import check_store, settle
from graphmem.lifecycle.curation import Curator
from graphmem.querying import Querying
from graphmem.store.schema import SCHEMA_VERSION
from graphmem.store.upgrades import RELINK, Upgrade, mark_done, pending_upgrades
from graphmem.errors import ConfigError
from graphmem.supersession.stored import RECLAIM
from graphmem.views import Views, now_ms
from graphmem.writer import Writer


def store_upgrades(supersession: bool) -> tuple[Upgrade, ...]:
    """The upgrades of the layers above the store that a handle asks for beside the
    store's own (`graphmem.store.upgrades.UPGRADES`): `graphmem reclaim` where it keeps
    claims (its write config's supersession on)."""
    return (RECLAIM,) if supersession else ()


class Upkeep(Querying):
    """The store-keeping methods of a ``MemoryGraph`` (see the module docstring)."""

    _views: Views
    _curator: Curator
    _writer: Writer
    _lock: threading.RLock
    _embedder: Any

    @one_at_a_time
    def reembed(self, *, batch: int = 256,
                progress: Callable[[str, int], None] | None = None) -> dict[str, int]:
        """Rebuild every memory's vector with this handle's embedding model and record the
        model in the store; returns the memories re-embedded per namespace. Each batch is
        one write guarded by its namespace's version; run it with other processes closed
        (they still hold the old model)."""
        done: dict[str, int] = {}
        for ns in [r["ns"] for r in self.query("admin/namespaces")]:
            rows = self.query("memory/texts_to_embed", {"ns": ns})
            for lo in range(0, len(rows), batch):
                chunk = rows[lo:lo + batch]
                vectors = self._embedder.embed([r["text"] for r in chunk])
                payload = [{"id": r["id"], "embedding": [float(x) for x in v]}
                           for r, v in zip(chunk, vectors)]
                self._curator.run(ns, "memory/set_embeddings", {"rows": payload},
                                  sync=False)
                if progress:
                    progress(ns, lo + len(chunk))
            done[ns] = len(rows)
            self._views.forget_namespace(ns)
        self.query("admin/set_embedding_model", {"name": self._embedder.name, "now": now_ms(),
                                                 "dimension": self._embedder.dimension},
                   write=True)
        if any(done.values()):
            self._store.compact_log()
        return done

    @one_at_a_time
    def reclaim(self, *, batch: int = 256,
                progress: Callable[[str, int], None] | None = None) -> dict[str, int]:
        """Keep with every memory the claims this release reads in its wordings, where
        none are kept or they were read another way (a store imported or written by an
        older release: its memories are otherwise parsed again by every process that
        meets them, up to 8 for each statement written); returns the memories given
        claims per namespace. Each batch is one write guarded by its namespace's
        version; other processes read the changed memories again. At the end the store is
        asked to compact its log (``Store.compact_log``)."""
        detector = self._writer.supersession
        if detector is None:
            raise ConfigError("this handle's write config turns supersession off, so no "
                              "claims are kept: open the store with supersession on")
        done: dict[str, int] = {}
        for ns in [r["ns"] for r in self.query("admin/namespaces")]:
            rows = self.query("memory/claims_kept", {"ns": ns})
            done[ns] = 0
            for lo in range(0, len(rows), batch):
                chunk = rows[lo:lo + batch]
                kept = detector.to_keep(chunk)
                if kept:
                    self._views.guarded(ns, "memory/set_claims", {"rows": kept},
                                        local=_with_claims(kept))
                done[ns] += len(kept)
                if progress:
                    progress(ns, lo + len(chunk))
        mark_done(self._store, self._queries, RECLAIM)
        if any(done.values()):
            self._store.compact_log()  # else every start replays each memory's new claims
        return done

    @one_at_a_time
    def relink_timelines(self, *, check: bool = False, ns: str | None = None,
                         progress: Callable[[str, int], None] | None = None
                         ) -> dict[str, int]:
        """Set every StoryArc timeline's NEXT edges to its memories' order (time, then
        when recorded, then id: `view.arc_key`); returns the edges removed or added per
        namespace (with ``check``: the edges that would be, and nothing is written).
        Releases before 2026-12-02 left a stale edge where one deposit put several
        memories on one timeline (the write cut an edge it was adding); releases before
        2026-12-05 linked the memories of one time by id. Each timeline that differs is
        one write guarded by its namespace's version, read again if another writer moved
        it. With ``ns``, that namespace alone. Done for every namespace, it records the
        store's `relink_timelines` upgrade as done (`graphmem.store.upgrades`)."""
        done: dict[str, int] = {}
        for name in [ns] if ns else [r["ns"] for r in self.query("admin/namespaces")]:
            arcs = [r["arc"] for r in self.query("memory/timeline_ids", {"ns": name})]
            done[name] = 0
            for read, arc in enumerate(arcs, 1):
                done[name] += self._relink(name, arc, check=check)
                if progress:
                    progress(name, read)
        if not check and ns is None:
            mark_done(self._store, self._queries, RELINK)
        return done

    def _relink(self, ns: str, arc: str, *, check: bool = False) -> int:
        if check:  # nothing is written: no version to guard a write with
            return sum(map(len, self._stale_links(ns, arc)))

        def attempt(n: int) -> int | None:
            state = self._views.state(ns)  # read before the timeline: it guards the write
            version = state.version if state else 0
            cuts, adds = self._stale_links(ns, arc)
            if not cuts and not adds:
                return 0
            if not self.query("memory/relink_timeline",
                              {"ns": ns, "expected": version, "seq": version + 1,
                               "arc": arc, "cuts": [list(c) for c in cuts],
                               "adds": [list(a) for a in adds]}, write=True):
                return None  # another writer moved the namespace: read it again
            self._store.note_version(ns, version + 1)
            return len(cuts) + len(adds)

        return retry_moved_version(attempt, attempts=60, backoff_ms=2.0,
                                   what=f"the relink of timeline {arc!r}")

    def _stale_links(self, ns: str, arc: str
                     ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """One timeline's NEXT edges to cut and to add to match its members' order."""
        row = self.query("memory/timeline", {"ns": ns, "arc": arc})
        members = row[0]["members"] if row else []
        wanted = set(zip(members, members[1:]))
        links = {(a, b) for a, b in (row[0]["links"] if row else []) if a is not None}
        return sorted(links - wanted), sorted(wanted - links)

    def check(self) -> list[str]:
        """What ``graphmem check`` reports: every way the store's namespaces, records and
        version journal disagree (empty when the store is whole)."""
        return [str(p) for p in check_store(self._store, self._queries)]

    def upgrades_pending(self) -> list[str]:
        """The commands still due after an upgrade, each with why (empty when none)."""
        also = store_upgrades(self._writer.supersession is not None)
        return [str(u) for u in pending_upgrades(self._store, self._queries, settle=False,
                                                 also=also)]

    def settle(self) -> list[str]:
        """After a damaged log: accept what the graph holds as each namespace's history
        (the longest prefix that replays consistently) and say what was lost. Run by
        ``graphmem repair``; any other process using the store must be closed."""
        return settle(self._store, check_store(self._store, self._queries))

    def status(self) -> dict[str, Any]:
        """Backend, URI, node counts by label, edge counts by type, schema version, and
        the commands still due after an upgrade (`graphmem.store.upgrades`)."""
        caps = self._store.capabilities
        return {
            "backend": caps.backend,
            "version": caps.version,
            "uri": self._store.uri,
            "schema_version": len(self._store.schema_steps()),
            "schema_version_expected": SCHEMA_VERSION,
            "upgrades_pending": self.upgrades_pending(),
            "nodes": {r["label"]: r["count"] for r in self.query("admin/label_counts")},
            "edges": {r["type"]: r["count"] for r in self.query("admin/relationship_counts")},
        }


def _with_claims(kept: list[dict[str, str]]):
    """Apply a `reclaim` batch to a view that was current before it."""
    def local(view, seq: int, rows: list) -> int:
        return sum(view.apply([row["id"]], seq, claims=row["claims"]) for row in kept)
    return local

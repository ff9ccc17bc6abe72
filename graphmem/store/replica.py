"""FalkorDB with a read replica: writes go to the primary, reads to a replica, behind the
one :class:`~graphmem.store.base.Store` interface.

    GRAPHMEM_URI=falkordb://primary:6379  GRAPHMEM_READ_URI=falkordb://replica:6380

Which server answers what:

    write, transaction, ensure_schema,            the primary (a replica refuses writes)
    note_version, forget_version
    read, schema_steps, noted_versions            the replica, once it holds every write
                                                  this handle made (below); the primary
                                                  when the replica stays behind too long

**Read-your-writes, by bookmark.** A Redis replica applies the primary's commands in the
primary's order, so at any moment it holds a prefix of the primary's history: a view
caught up from it is a consistent state of some earlier version, never a mix. What a
replica lacks is freshness. So after every write this store notes the primary's
replication offset (its bookmark); before the next read it waits until the replica's
offset has reached it (``max_lag_s``, default 2 s), else reads that one from the primary
and logs why (and bookmarks what that read may have shown). Hence a handle always
reads its own writes, its reads never go back in time, and it sees every write the
primary had applied when its last write returned: after a guarded write that found the
namespace moved (another instance wrote), the retry reads a version at least that new,
and converges as it does against one server. The guard itself is evaluated by the
primary, inside the write statement, so a plan made on a stale view can never land.

``read_uri`` must name one replica, not a pool behind a load balancer: two replicas at
different offsets could answer one catch-up's two reads (the version, then what changed
up to it) from different points in time. Give each instance its own replica instead.

Reads by a handle that has not written lag the primary by the replication delay (well
under a millisecond on one machine, measured in ``benchmarks/replica_bench.py``).
``docs/scaling-out.md`` says what that means for recall across many service instances.

Owns only the routing; imports the FalkorDB adapter, the settings and the error tree.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence, TypeVar

from graphmem.errors import ConfigError, StoreUnavailable
from graphmem.settings import StoreSettings
from graphmem.store.base import Params, Row, Statement, Tracer
from graphmem.store.falkordb import FalkorDBStore
from graphmem.store.uri import Target, parse_uri

log = logging.getLogger(__name__)

__all__ = ["ReadStats", "ReplicatedStore", "open_replicated"]

T = TypeVar("T")


@dataclass
class ReadStats:
    """How this handle's reads were served (for tests, benchmarks and ``status``)."""

    replica: int = 0  # reads the replica answered
    waited: int = 0  # of those, reads that first waited for the replica to catch up
    primary: int = 0  # reads sent to the primary because the replica stayed behind


def open_replicated(settings: StoreSettings) -> "ReplicatedStore":
    """The primary ``settings.uri`` for writes and the replica ``settings.read_uri`` for
    reads; a clear ConfigError when the pair cannot work that way."""
    primary_target = parse_uri(settings.uri)
    read_target = parse_uri(settings.read_uri)
    shown = read_target.display
    if primary_target.backend == "neo4j":
        raise ConfigError(
            f"GRAPHMEM_READ_URI ({shown}) is for FalkorDB replicas; a Neo4j cluster routes "
            "reads itself: give its neo4j:// URI as GRAPHMEM_URI and leave GRAPHMEM_READ_URI "
            "unset")
    if primary_target.backend != "falkordb":
        raise ConfigError(
            f"GRAPHMEM_READ_URI ({shown}) needs a FalkorDB server as the primary "
            "(GRAPHMEM_URI=falkordb://host:6379): the embedded store listens on a Unix "
            "socket only, so no replica can follow it")
    if read_target.backend != "falkordb":
        raise ConfigError(
            f"GRAPHMEM_READ_URI {shown!r} must name a FalkorDB replica "
            f"(falkordb://host:6380), not a {read_target.backend} store")
    primary = _falkordb(primary_target, settings)
    try:
        replica = _falkordb(read_target, settings)
    except BaseException:
        primary.close()
        raise
    try:
        return ReplicatedStore(primary, replica)
    except BaseException:
        primary.close()
        replica.close()
        raise


def _falkordb(target: Target, settings: StoreSettings) -> FalkorDBStore:
    return FalkorDBStore(graph=target.database or settings.graph, host=target.host,
                         port=target.port, username=target.user or settings.user,
                         password=target.password or settings.password, uri=target.uri)


class ReplicatedStore:
    """A FalkorDB primary for writes and one of its replicas for reads."""

    def __init__(self, primary: FalkorDBStore, replica: FalkorDBStore, *,
                 max_lag_s: float = 2.0, link_timeout_s: float = 10.0) -> None:
        if max_lag_s < 0 or link_timeout_s < 0:
            raise ConfigError(f"max_lag_s ({max_lag_s}) and link_timeout_s "
                              f"({link_timeout_s}) must not be negative")
        self.primary, self.replica = primary, replica
        self.uri = primary.uri
        self.read_uri = replica.uri
        self.capabilities = primary.capabilities
        self.queries = primary.queries
        self.server = None  # nothing embedded: snapshots need GRAPHMEM_SNAPSHOT_DIR
        self.max_lag_s = max_lag_s
        self.stats = ReadStats()
        self._bookmark = 0  # the primary's replication offset after this handle's last write
        self._reached = 0  # an offset the replica is known to have applied
        self._offsets = threading.Lock()  # threads of one handle must not lower the bookmark
        self._check_follows(link_timeout_s)

    # -- writes: the primary --------------------------------------------------------

    def write(self, query: str, params: Params | None = None) -> list[Row]:
        try:
            return self.primary.write(query, params)
        finally:
            # even a write that changed nothing (a guard that found the namespace moved)
            # bookmarks what the primary holds, so the retry reads a newer version
            self._mark()

    def transaction(self, statements: Sequence[Statement]) -> list[list[Row]]:
        try:
            return self.primary.transaction(statements)
        finally:
            self._mark()

    def ensure_schema(self) -> list[str]:
        try:
            return self.primary.ensure_schema()
        finally:
            self._mark()

    def note_version(self, ns: str, version: int) -> None:
        self.primary.note_version(ns, version)
        self._mark()

    def forget_version(self, ns: str) -> None:
        self.primary.forget_version(ns)
        self._mark()

    def read_noting(self, ns: str, version: int, query: str,
                    params: Params | None = None) -> list[Row]:
        """The note on the primary, the read where reads go: two round trips."""
        self.note_version(ns, version)
        return self.read(query, params)

    def compact_log(self) -> bool:
        """The primary's log; each replica keeps its own persistence."""
        return self.primary.compact_log()

    # -- reads: the replica, once it holds this handle's writes ------------------------

    def read(self, query: str, params: Params | None = None) -> list[Row]:
        return self._read(lambda store: store.read(query, params))

    def schema_steps(self) -> list[str]:
        return self._read(lambda store: store.schema_steps())

    def noted_versions(self) -> dict[str, int]:
        return self._read(lambda store: store.noted_versions())

    def _read(self, run: Callable[[FalkorDBStore], T]) -> T:
        store = self._reader()
        try:
            return run(store)
        finally:
            if store is self.primary:
                # what the primary showed may be newer than the bookmark: the next read
                # from the replica must not show less (a view would keep a hole)
                self._mark()

    def _reader(self) -> FalkorDBStore:
        if self._reached >= self._bookmark:
            self.stats.replica += 1
            return self.replica
        deadline = time.monotonic() + self.max_lag_s
        pause = 0.0002
        while True:
            self._reached = self._replica_offset()
            if self._reached >= self._bookmark:
                self.stats.replica += 1
                self.stats.waited += 1
                return self.replica
            if time.monotonic() >= deadline:
                break
            time.sleep(pause)
            pause = min(pause * 2, 0.01)
        self.stats.primary += 1
        log.warning("replica %s is more than %.1f s behind the primary (offset %d < %d); "
                    "this read goes to the primary", self.read_uri, self.max_lag_s,
                    self._reached, self._bookmark)
        return self.primary

    # -- replication offsets ------------------------------------------------------------

    def _mark(self) -> None:
        try:
            info = _info(self.primary)
        except StoreUnavailable:
            return  # the write's own error (if any) says what happened
        with self._offsets:
            self._bookmark = max(self._bookmark, int(info.get("master_repl_offset", 0)))

    def _replica_offset(self) -> int:
        info = _info(self.replica)
        if info.get("master_link_status") != "up":
            return -1  # resyncing: what it holds may be older than what it held
        return int(info.get("slave_repl_offset", info.get("master_repl_offset", -1)))

    def _check_follows(self, timeout_s: float) -> None:
        """Refuse a read server that is not a replica of this primary; wait (up to
        ``timeout_s``) for one that is still making its first copy."""
        deadline = time.monotonic() + timeout_s
        while True:
            primary, replica = _info(self.primary), _info(self.replica)
            if replica.get("role") != "slave":
                raise ConfigError(
                    f"the read server {self.read_uri} is not a replica (role "
                    f"{replica.get('role')!r}); start it with --replicaof <primary host> "
                    f"<primary port> or send it REPLICAOF, or unset GRAPHMEM_READ_URI")
            linked = replica.get("master_link_status") == "up"
            if linked and replica.get("master_replid") == primary.get("master_replid"):
                self._bookmark = int(primary.get("master_repl_offset", 0))
                return
            if linked:  # a replica that finished copying another primary
                raise ConfigError(
                    f"the read server {self.read_uri} replicates another primary "
                    f"({replica.get('master_host')}:{replica.get('master_port')}), not "
                    f"{self.uri}; point GRAPHMEM_READ_URI at a replica of GRAPHMEM_URI")
            if time.monotonic() >= deadline:
                raise StoreUnavailable(
                    f"the replica {self.read_uri} has not finished copying its primary "
                    f"within {timeout_s:.0f} s (master_link_status "
                    f"{replica.get('master_link_status')!r}); check its log, then retry")
            time.sleep(0.05)

    # -- the rest of the interface --------------------------------------------------------

    def add_tracer(self, tracer: Tracer) -> None:
        self.primary.add_tracer(tracer)
        self.replica.add_tracer(tracer)

    def remove_tracer(self, tracer: Tracer) -> None:
        self.primary.remove_tracer(tracer)
        self.replica.remove_tracer(tracer)

    def close(self) -> None:
        try:
            self.replica.close()
        finally:
            self.primary.close()


def _info(store: FalkorDBStore) -> dict[str, Any]:
    """``INFO replication`` of the server behind ``store``."""
    return store.replication()

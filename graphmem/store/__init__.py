"""Graph stores behind one interface: embedded FalkorDB (default), FalkorDB server, Neo4j."""

from __future__ import annotations

from graphmem.settings import StoreSettings
from graphmem.store.base import Capabilities, Row, Statement, Store
from graphmem.store.embedded import EmbeddedServer
from graphmem.store.falkordb import FalkorDBStore
from graphmem.store.replica import open_replicated
from graphmem.store.uri import Target, parse_uri

__all__ = ["Capabilities", "Row", "Statement", "Store", "Target", "open_store", "parse_uri"]


def open_store(settings: StoreSettings) -> Store:
    """Open (and for the embedded backend, start) the store the settings name."""
    if settings.read_uri:  # writes to the primary ``uri``, reads from its replica
        return open_replicated(settings)
    target = parse_uri(settings.uri)
    if target.backend == "neo4j":
        # the Neo4j driver loads only for the optional server backend
        from graphmem.store.neo4j import Neo4jStore

        return Neo4jStore(target, user=settings.user, password=settings.password)
    if target.backend == "falkordb":
        return FalkorDBStore(graph=target.database or settings.graph, host=target.host,
                             port=target.port, username=target.user or settings.user,
                             password=target.password or settings.password, uri=target.uri)
    server = EmbeddedServer(target.path or settings.data_dir, fsync=settings.fsync,
                            redis_server=settings.redis_server,
                            module=settings.falkordb_module,
                            start_timeout_s=settings.start_timeout_s,
                            lock_timeout_s=settings.lock_timeout_s, graph=settings.graph)
    socket = server.acquire()
    try:
        return FalkorDBStore(graph=settings.graph, socket_path=str(socket), server=server,
                             uri=f"embedded://{server.data_dir}")
    except BaseException:
        server.release()
        raise

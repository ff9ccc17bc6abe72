"""Writes acknowledged before the embedded server dies by SIGKILL are all there after
reopening, and no statement is ever half applied (fsync on every write, the default).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from graphmem import MemoryGraph
from graphmem.store import aof
from graphmem.store.base import Statement

ACKED = 150


def kill_server(graph: MemoryGraph) -> None:
    """SIGKILL the embedded server (no shutdown, no flush) and wait until it is gone."""
    assert graph._store.server.kill()


def reopen(data: Path, graph: MemoryGraph) -> MemoryGraph:
    graph.close()  # gives back the lease; the dead server leaves stale files behind
    return MemoryGraph.open(data_dir=data)


def test_every_acknowledged_write_survives_sigkill(tmp_path):
    data = tmp_path / "data"
    g = MemoryGraph.open(data_dir=data)
    assert g._store._db.connection.execute_command("CONFIG", "GET", "appendfsync") == [
        "appendfsync", "always"]
    for i in range(ACKED):  # each its own statement, each acknowledged
        g.cypher("MERGE (m:Memory {ns: 'd', id: $id}) SET m.n = $n",
                 {"id": f"m{i}", "n": i}, write=True)
    g.cypher("MATCH (m:Memory {ns: 'd', id: 'm7'}) SET m.n = -7", write=True)
    kill_server(g)
    with reopen(data, g) as again:
        rows = again.cypher("MATCH (m:Memory {ns: 'd'}) RETURN m.id AS id, m.n AS n")
    values = {r["id"]: r["n"] for r in rows}
    assert values == {f"m{i}": (-7 if i == 7 else i) for i in range(ACKED)}


def test_multi_row_statement_and_transaction_survive_whole(tmp_path):
    data = tmp_path / "data"
    g = MemoryGraph.open(data_dir=data)
    g.cypher("UNWIND range(1, 5000) AS i CREATE (:Memory {ns: 'rows', id: toString(i)})",
             write=True)
    g._store.transaction([
        Statement("CREATE (:Agent {ns: 'tx', id: 'a'})"),
        Statement("MATCH (a:Agent {ns: 'tx', id: 'a'}) "
                  "UNWIND range(1, 300) AS i CREATE (a)-[:OWNS]->(:Memory {ns: 'tx', id: toString(i)})"),
    ])
    kill_server(g)
    with reopen(data, g) as again:
        assert again.cypher("MATCH (m:Memory {ns: 'rows'}) RETURN count(m) AS n") == [{"n": 5000}]
        owned = again.cypher("MATCH (:Agent {ns: 'tx'})-[:OWNS]->(m) RETURN count(m) AS n")
        assert owned == [{"n": 300}]


WRITER = textwrap.dedent("""
    import sys
    from graphmem import MemoryGraph
    g = MemoryGraph.open(data_dir=sys.argv[1])
    print(g._store.server.pid, flush=True)
    i = 0
    while True:
        g.cypher("UNWIND range(1, 50) AS j CREATE (:Memory {ns: 'w', id: $p + toString(j), batch: $i})",
                 {"p": sys.argv[2] + str(i) + "-", "i": i}, write=True)
        print(i, flush=True)  # acknowledged: the server replied
        i += 1
""")


def test_writers_in_other_processes_lose_nothing_acknowledged(tmp_path):
    """Two processes write batches; the server dies under them; every acknowledged batch
    is complete after reopening, and any unacknowledged batch is all or nothing."""
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data):  # start it once so both writers share it
        writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(data), name],
                                    stdout=subprocess.PIPE, text=True) for name in "ab"]
        try:
            pids = {int(w.stdout.readline()) for w in writers}
            assert len(pids) == 1
            acked = {name: -1 for name in "ab"}
            for name, w in zip("ab", writers):  # read a few acknowledgements from each
                for _ in range(5):
                    acked[name] = int(w.stdout.readline())
            os.kill(pids.pop(), signal.SIGKILL)
            for name, w in zip("ab", writers):
                for line in w.stdout:  # drain acknowledgements sent before the kill
                    acked[name] = int(line)
                w.wait(10)
                assert w.returncode != 0  # it died on the lost server, as it should
        finally:
            for w in writers:
                if w.poll() is None:
                    w.kill()
    with MemoryGraph.open(data_dir=data) as again:
        rows = again.cypher("MATCH (m:Memory {ns: 'w'}) "
                            "RETURN left(m.id, 1) AS who, m.batch AS batch, count(m) AS n")
    batches = {(r["who"], r["batch"]): r["n"] for r in rows}
    for name in "ab":
        for i in range(acked[name] + 1):
            assert batches.pop((name, i)) == 50, f"acknowledged batch {name}{i} incomplete"
    # what is left was sent but not acknowledged: at most one batch per writer, whole
    assert all(n == 50 for n in batches.values())
    assert len(batches) <= 2


def incr_bytes(data: Path) -> int:
    """The size of the append-only file's increments: what a start replays."""
    return aof.parts(data / "appendonlydir")[1]


def base_file(data: Path) -> str:
    """The name of the append-only file's base (its number grows with each rewrite)."""
    return next((data / "appendonlydir").glob("*.base.rdb")).name


def write_tail(graph: MemoryGraph, megabytes: int) -> None:
    """Write about ``megabytes`` MB into the append-only file's tail (it logs each query
    with its parameters)."""
    for i in range(megabytes):
        graph.cypher("CREATE (:Blob {n: $n, s: $s})", {"n": i, "s": "x" * 1_050_000},
                     write=True)


def test_the_last_close_rewrites_a_tail_that_would_outweigh_the_next_start(tmp_path):
    data = tmp_path / "data"
    first, second = MemoryGraph.open(data_dir=data), MemoryGraph.open(data_dir=data)
    # the close's rewrite alone: the server's own (the test below) would race it
    first._store._db.connection.config_set("auto-aof-rewrite-percentage", 0)
    write_tail(first, 5)
    assert incr_bytes(data) >= aof.MIN_TAIL_BYTES and aof.tail_outweighs_base(
        data / "appendonlydir")
    base = base_file(data)
    first.close()  # another store still holds the server: nothing rewritten
    assert base_file(data) == base and incr_bytes(data) >= aof.MIN_TAIL_BYTES
    second.close()  # the last: rewritten, then stopped
    assert base_file(data) != base and incr_bytes(data) < aof.MIN_TAIL_BYTES
    with MemoryGraph.open(data_dir=data) as again:
        rows = again.cypher("MATCH (b:Blob) RETURN b.n AS n, size(b.s) AS size")
    assert sorted((r["n"], r["size"]) for r in rows) == [(i, 1_050_000) for i in range(5)]


def wait_for_rewrite(data: Path, base: str, timeout_s: float = 20.0) -> bool:
    """Whether the server rewrote its file on its own (a new base) within the time."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if base_file(data) != base:
            return True
        time.sleep(0.05)
    return False


def test_a_running_server_rewrites_a_long_tail_so_a_crash_replays_little(tmp_path):
    data = tmp_path / "data"
    g = MemoryGraph.open(data_dir=data)
    base = base_file(data)
    write_tail(g, 6)  # past the bound: the server rewrites on its own, nobody closing
    assert wait_for_rewrite(data, base), "Redis' default waits for a 64 MB file"
    g.cypher("CREATE (:Blob {n: 6, s: 'after'})", write=True)
    kill_server(g)  # a crash: no close, no rewrite before the stop
    assert incr_bytes(data) < aof.MIN_TAIL_BYTES
    with reopen(data, g) as again:
        rows = again.cypher("MATCH (b:Blob) RETURN b.n AS n, size(b.s) AS size")
    assert sorted((r["n"], r["size"]) for r in rows) == [
        *((i, 1_050_000) for i in range(6)), (6, 5)]


def test_a_server_started_with_a_looser_bound_gets_ours_and_a_tighter_one_is_kept(tmp_path):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data) as first:
        connection = first._store._db.connection
        percent = lambda: int(connection.config_get(  # noqa: E731
            "auto-aof-rewrite-percentage")["auto-aof-rewrite-percentage"])
        assert percent() == aof.REWRITE_PERCENT
        for running, kept in ((100, aof.REWRITE_PERCENT), (0, aof.REWRITE_PERCENT), (2, 2)):
            connection.config_set("auto-aof-rewrite-percentage", running)  # as started
            with MemoryGraph.open(data_dir=data):  # another opener of the running server
                assert percent() == kept


def test_a_small_tail_is_kept_at_close(tmp_path):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data) as g:
        g.cypher("CREATE (:Memory {ns: 'c', id: 'kept'})", write=True)
        base, tail = base_file(data), incr_bytes(data)
    assert 0 < tail < aof.MIN_TAIL_BYTES and not aof.tail_outweighs_base(
        data / "appendonlydir")
    assert base_file(data) == base and incr_bytes(data) == tail  # no fork at every close
    with MemoryGraph.open(data_dir=data) as again:
        assert again.cypher("MATCH (m:Memory {ns: 'c'}) RETURN m.id AS id") == [{"id": "kept"}]


def test_a_tail_is_weighed_against_its_base(tmp_path):
    aof_dir = tmp_path / "appendonlydir"
    aof_dir.mkdir()
    assert aof.parts(aof_dir) == (0, 0) and not aof.tail_outweighs_base(aof_dir)
    (aof_dir / "a.1.base.rdb").write_bytes(b"b" * 1000)
    (aof_dir / "a.1.incr.aof").write_bytes(b"i" * 300)
    (aof_dir / "a.2.incr.aof").write_bytes(b"i" * 200)
    (aof_dir / "a.0.base.rdb").write_bytes(b"h" * 5000)  # history: not in the manifest
    (aof_dir / "a.manifest").write_text(
        "file a.1.base.rdb seq 1 type b\n"
        "file a.1.incr.aof seq 1 type i startoffset 0 endoffset 300\n"
        "file a.2.incr.aof seq 2 type i\n"
        "file a.gone.incr.aof seq 3 type i\n")  # named but missing: not counted
    assert aof.parts(aof_dir) == (1000, 500)
    assert not aof.tail_outweighs_base(aof_dir)  # under MIN_TAIL_BYTES


def test_a_compacted_log_replays_nothing_and_loses_nothing(tmp_path):
    data = tmp_path / "data"
    g = MemoryGraph.open(data_dir=data)
    for i in range(300):
        g.cypher("MERGE (m:Memory {ns: 'c', id: $id}) SET m.n = $n",
                 {"id": f"m{i}", "n": i}, write=True)
    g.cypher("MATCH (m:Memory {ns: 'c', id: 'm3'}) DELETE m", write=True)
    written = incr_bytes(data)
    assert g._store.compact_log() is True
    assert written > 20_000 and incr_bytes(data) == 0  # the rewrite is done on return
    g.cypher("CREATE (:Memory {ns: 'c', id: 'after'})", write=True)  # into the new file
    kill_server(g)
    with reopen(data, g) as again:
        rows = again.cypher("MATCH (m:Memory {ns: 'c'}) RETURN m.id AS id")
    assert {r["id"] for r in rows} == {f"m{i}" for i in range(300) if i != 3} | {"after"}


def test_a_rewrite_longer_than_the_wait_is_left_to_finish(tmp_path, caplog):
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        # enough that the server's fork is still writing when it is first asked (its
        # parent notices a finished rewrite only at its next tick, 100 ms at most)
        g.cypher("UNWIND range(1, 50000) AS i CREATE (:Memory {ns: 'w', id: toString(i)})",
                 write=True)
        assert g._store.compact_log(timeout_s=0.0) is False
        assert "still rewriting" in caplog.text
        assert g._store.compact_log() is True  # a second call waits for the one running

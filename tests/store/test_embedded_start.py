"""The embedded server's start when it is slow or stuck: a server still loading a large
store is waited for; one that hangs on its first graph, or stalls while loading, is
killed and started again.

Every test runs the real redis-server the library starts; the hangs are real SIGSTOPs.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
import redis

from graphmem import MemoryGraph
from graphmem.errors import StoreError
from graphmem.store import embedded
from graphmem.store.embedded import EmbeddedServer, pid_alive


def _servers_of(data: Path) -> list[int]:
    """Pids of the redis-servers whose command line names ``data``'s socket."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if "redis-server" in cmdline and str(data.resolve()) in cmdline:
                pids.append(int(proc.name))
    return pids


@pytest.mark.slow
def test_a_server_still_loading_a_large_store_is_waited_for(tmp_path):
    """Reopening a store with a vector index (an older store's, or one a user made)
    rebuilds it before the server answers; that can take far longer than a start (43 s at
    100,000 memories). A server that is alive and loading is waited for; only one that is
    down is given up on after the start timeout."""
    import random

    data = tmp_path / "data"
    rng = random.Random(0)
    with MemoryGraph.open(data_dir=data) as g:
        g.cypher("CREATE VECTOR INDEX FOR (m:Memory) ON (m.embedding) "
                 "OPTIONS {dimension: 384, similarityFunction: 'cosine'}", write=True)
        for _ in range(5):  # 10,000 vectors: about 4 s to load here
            g.cypher("UNWIND $vs AS v CREATE (:Memory {ns: 'load', id: randomUUID(), seq: 1, "
                     "embedding: vecf32(v)})",
                     {"vs": [[rng.random() for _ in range(384)] for _ in range(2000)]}, write=True)
    impatient = EmbeddedServer(data, start_timeout_s=0.2, load_timeout_s=0.5)
    with pytest.raises(StoreError, match="did not start"):
        impatient.acquire()
    assert impatient.pid is None, "a server that was given up on must not be left running"
    assert not [p for p in _servers_of(data)], "a server that was given up on is still running"
    server = EmbeddedServer(data, start_timeout_s=0.2)
    started = time.monotonic()
    server.acquire()
    try:
        waited = time.monotonic() - started
        assert waited > server.start_timeout_s, (
            f"the store loaded in {waited:.2f}s, within the start timeout: this test needs a "
            "store that loads more slowly (add vectors)")
        client = redis.Redis(unix_socket_path=str(server.socket_path))
        assert client.execute_command("GRAPH.QUERY", "graphmem",
                                      "MATCH (m:Memory {ns: 'load'}) RETURN count(m)")[1] == [[10000]]
        client.close()
    finally:
        server.release()


def test_a_server_that_hangs_on_its_first_graph_is_started_again(tmp_path, monkeypatch):
    """A new server that answers PING but makes no graph (here: stopped with SIGSTOP
    right after it started, as a hung FalkorDB looks) is killed and started again."""
    from graphmem.store import probe
    from graphmem.store.falkordb import FalkorDBStore

    monkeypatch.setattr(probe, "PROBE_TIMEOUT_S", 2.0)
    original = EmbeddedServer._start
    stopped: list[int] = []

    def start_then_hang(self):
        answered = original(self)
        if not stopped:
            stopped.append(self.pid)
            os.kill(self.pid, signal.SIGSTOP)
        return answered

    monkeypatch.setattr(EmbeddedServer, "_start", start_then_hang)
    server = EmbeddedServer(tmp_path / "d")
    socket = server.acquire()
    try:
        assert stopped and server.pid != stopped[0] and not pid_alive(stopped[0])
        store = FalkorDBStore(graph="g", socket_path=str(socket), server=server)
        store.ensure_schema()
        assert store.read("RETURN 1 AS one") == [{"one": 1}]
        store.close()
    finally:
        server.release()


def test_a_server_that_stalls_while_loading_is_started_again(tmp_path, monkeypatch):
    """A new server that takes connections but neither answers nor runs (stopped with
    SIGSTOP before its first answer, as FalkorDB deadlocked replaying its files looks)
    is killed and started again, not waited on as a loading one for load_timeout_s."""
    monkeypatch.setattr(embedded, "STALLED_S", 1.0)
    original = EmbeddedServer._wait_up
    stopped: list[int] = []

    def stall_first(self, log_offset):
        if not stopped:
            deadline = time.monotonic() + 10
            # stopped once it listens: connections are then taken and never answered
            while ((self.pid is None or not self.socket_path.exists())
                   and time.monotonic() < deadline):
                time.sleep(0.01)
            stopped.append(self.pid)
            os.kill(self.pid, signal.SIGSTOP)
        return original(self, log_offset)

    monkeypatch.setattr(EmbeddedServer, "_wait_up", stall_first)
    server = EmbeddedServer(tmp_path / "d", load_timeout_s=30.0)  # without: "did not start"
    started = time.monotonic()
    server.acquire()
    try:
        assert time.monotonic() - started < server.load_timeout_s
        assert stopped and server.pid != stopped[0] and not pid_alive(stopped[0])
        client = redis.Redis(unix_socket_path=str(server.socket_path))
        assert client.ping()
        client.close()
    finally:
        server.release()

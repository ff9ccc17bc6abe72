"""The embedded server's life: shared by processes, stopped by the last, recovered after a
crash, reachable only through a Unix socket in the data directory.

Every test runs real processes: the redis-server the library starts, and Python clients
started with subprocess; crashes are real SIGKILLs.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
import redis

from graphmem import MemoryGraph
from graphmem.errors import DataDirError
from graphmem.store import embedded
from graphmem.store.embedded import EmbeddedServer, default_binaries, pid_alive

# A client process: opens the store, prints the server pid, then obeys stdin lines
# ("write <id>", "count", "close") so a test can drive it step by step.
CLIENT = textwrap.dedent("""
    import sys
    from graphmem import MemoryGraph
    g = MemoryGraph.open(data_dir=sys.argv[1])
    print(g._store.server.pid, flush=True)
    for line in sys.stdin:
        cmd, _, arg = line.strip().partition(" ")
        if cmd == "write":
            g.cypher("CREATE (:Memory {ns: 'c', id: $id})", {"id": arg}, write=True)
            print("ok", flush=True)
        elif cmd == "count":
            print(g.cypher("MATCH (m:Memory) RETURN count(m) AS n")[0]["n"], flush=True)
        elif cmd == "close":
            g.close()
            print("closed", flush=True)
            break
""")


class Client:
    """A Python process holding the store open in ``data_dir``."""

    def __init__(self, data_dir: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", CLIENT, str(data_dir)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.server_pid = int(self._line())

    def ask(self, command: str) -> str:
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._line()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)

    def close(self) -> None:
        assert self.ask("close") == "closed"
        self.proc.wait(10)

    def _line(self) -> str:
        line = self.proc.stdout.readline().strip()
        if not line:
            self.proc.wait(10)
            raise AssertionError(f"client exited with {self.proc.returncode}")
        return line


@pytest.fixture
def clients():
    """Client processes of a test, killed after it if still running."""
    started: list[Client] = []

    def start(data_dir: Path) -> Client:
        started.append(Client(data_dir))
        return started[-1]

    yield start
    for client in started:
        if client.proc.poll() is None:
            client.kill()


def wait_gone(pid: int, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not pid_alive(pid)


def listening_tcp_ports(pid: int) -> set[int]:
    """TCP ports on which process ``pid`` listens, from its socket inodes and /proc/net."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("tcp", "tcp6"):
        path = Path(f"/proc/{pid}/net/{table}")
        if not path.exists():
            continue
        for row in path.read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def test_second_process_uses_the_running_server(tmp_path, clients):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data) as g:
        other = clients(data)
        assert other.server_pid == g._store.server.pid
        assert other.ask("write from-child") == "ok"
        rows = g.cypher("MATCH (m:Memory {ns: 'c'}) RETURN m.id AS id")
        assert rows == [{"id": "from-child"}]
        other.close()
        # the child's close left our lease: the server still serves us
        assert pid_alive(g._store.server.pid)
        assert g.cypher("MATCH (m:Memory) RETURN count(m) AS n") == [{"n": 1}]


def test_server_stops_when_the_last_user_closes(tmp_path, clients):
    data = tmp_path / "data"
    first = clients(data)
    second = clients(data)
    pid = first.server_pid
    assert second.server_pid == pid
    assert len(list((data / "leases").iterdir())) == 2
    first.close()
    assert pid_alive(pid)
    assert second.ask("write after-first-closed") == "ok"
    second.close()
    assert wait_gone(pid)
    assert not (data / "falkordb.pid").exists()
    assert not (data / "falkordb.sock").exists()
    assert list((data / "leases").iterdir()) == []


def test_lease_of_a_killed_client_is_pruned(tmp_path, clients):
    data = tmp_path / "data"
    g = MemoryGraph.open(data_dir=data)
    pid = g._store.server.pid
    doomed = clients(data)
    doomed.kill()
    leases = [p.name for p in (data / "leases").iterdir()]
    assert any(name.startswith(f"{doomed.proc.pid}-") for name in leases)
    g.close()  # our lease was the last live one: the dead client's does not count
    assert wait_gone(pid)
    assert list((data / "leases").iterdir()) == []


def crash_everything(data: Path, clients) -> int:
    """A client writes three memories, then it and the server die by SIGKILL."""
    victim = clients(data)
    for i in range(3):
        assert victim.ask(f"write m{i}") == "ok"
    os.kill(victim.server_pid, signal.SIGKILL)
    assert wait_gone(victim.server_pid)
    victim.kill()
    return victim.server_pid


def test_stale_pid_and_socket_after_a_crash_are_recovered(tmp_path, clients):
    data = tmp_path / "data"
    dead_pid = crash_everything(data, clients)
    assert (data / "falkordb.pid").read_text().strip() == str(dead_pid)
    assert stat.S_ISSOCK((data / "falkordb.sock").stat().st_mode)
    with MemoryGraph.open(data_dir=data) as g:
        assert g._store.server.pid != dead_pid
        rows = g.cypher("MATCH (m:Memory) RETURN m.id AS id ORDER BY id")
        assert [r["id"] for r in rows] == ["m0", "m1", "m2"]
        new_pid = g._store.server.pid
    assert wait_gone(new_pid)


def test_pid_file_naming_a_live_stranger_is_stale(tmp_path, clients):
    data = tmp_path / "data"
    crash_everything(data, clients)
    # the crashed server's pid now belongs to another program (pid reuse)
    stranger = subprocess.Popen(["sleep", "60"])
    try:
        (data / "falkordb.pid").write_text(f"{stranger.pid}\n")
        with MemoryGraph.open(data_dir=data) as g:
            assert g._store.server.pid != stranger.pid
            assert g.cypher("MATCH (m:Memory) RETURN count(m) AS n") == [{"n": 3}]
        time.sleep(0.2)
        assert stranger.poll() is None, "closing the store must not signal a stranger"
    finally:
        stranger.kill()
        stranger.wait()


def test_no_tcp_port_is_opened(embedded_graph, tmp_path):
    pid = embedded_graph._store.server.pid
    conn = embedded_graph._store._db.connection
    assert conn.execute_command("CONFIG", "GET", "port") == ["port", "0"]
    assert listening_tcp_ports(pid) == set()
    # the same probe does see the port of a server that listens on one
    port = _free_port()
    server, _ = default_binaries()
    plain = subprocess.Popen([str(server), "--port", str(port), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
                             stdout=subprocess.DEVNULL)
    try:
        client = redis.Redis(port=port)
        deadline = time.monotonic() + 10
        while not _pings(client):
            assert time.monotonic() < deadline, "plain redis-server did not start"
            time.sleep(0.05)
        assert listening_tcp_ports(plain.pid) == {port}
    finally:
        plain.kill()
        plain.wait()


def _pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_socket_is_inside_the_data_dir(embedded_graph, tmp_path):
    server = embedded_graph._store.server
    assert server.socket_path == (tmp_path / "data").resolve() / "falkordb.sock"
    assert stat.S_ISSOCK(server.socket_path.stat().st_mode)
    assert (server.socket_path.stat().st_mode & 0o777) == 0o700


def test_deep_data_dir_gets_a_short_socket(tmp_path, clients):
    data = tmp_path.joinpath(*["nested-directory"] * 8) / "data"
    assert len(str(data / "falkordb.sock")) > 108  # would overflow sun_path
    with MemoryGraph.open(data_dir=data) as g:
        socket_path = g._store.server.socket_path
        assert len(str(socket_path)) <= 100
        assert stat.S_ISSOCK(socket_path.stat().st_mode)
        other = clients(data)  # another process derives the same short path
        assert other.server_pid == g._store.server.pid
        assert other.ask("write deep") == "ok"
        assert g.cypher("MATCH (m:Memory) RETURN m.id AS id") == [{"id": "deep"}]
        other.close()
        pid = g._store.server.pid
    assert wait_gone(pid)
    assert not socket_path.exists()
    assert not socket_path.parent.exists()  # the short directory goes with the server


def test_a_deep_temporary_directory_puts_the_short_socket_in_tmp(tmp_path, monkeypatch):
    deep = tmp_path.joinpath(*["temporary-directory"] * 5)
    deep.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(deep))  # as TMPDIR would
    data = tmp_path.joinpath(*["nested-directory"] * 8) / "data"
    with MemoryGraph.open(data_dir=data) as g:
        socket_path = g._store.server.socket_path
        assert socket_path.parent.parent == Path("/tmp")
        assert g.cypher("RETURN 1 AS one") == [{"one": 1}]
    assert not socket_path.parent.exists()


def test_a_socket_path_that_fits_nowhere_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(embedded, "_MAX_SOCKET_PATH", 8)  # no directory is that short
    with pytest.raises(DataDirError, match="set TMPDIR to a shorter directory"):
        EmbeddedServer(tmp_path / "data")


def test_stop_refuses_to_signal_a_process_that_is_not_our_server(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    stranger = subprocess.Popen(["sleep", "60"])
    try:
        (data / "falkordb.pid").write_text(str(stranger.pid))
        server = EmbeddedServer(data)
        assert server.pid is None
        server.stop()
        time.sleep(0.1)
        assert stranger.poll() is None
        assert not (data / "falkordb.pid").exists()
    finally:
        stranger.kill()
        stranger.wait()


def test_processes_opening_at_once_share_one_server(tmp_path, clients):
    data = tmp_path / "data"
    procs = [subprocess.Popen([sys.executable, "-c", CLIENT, str(data)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for _ in range(3)]
    try:
        pids = {int(p.stdout.readline()) for p in procs}
        assert len(pids) == 1
        assert len(list((data / "leases").iterdir())) == 3
    finally:
        for p in procs:
            p.kill()
            p.wait()
    os.kill(pids.pop(), signal.SIGKILL)


def test_something_in_the_way_of_the_socket_is_named(tmp_path, clients):
    data = tmp_path / "data"
    crash_everything(data, clients)
    (data / "falkordb.sock").unlink()
    (data / "falkordb.sock").mkdir()  # not a socket any more, and not removable by unlink
    with pytest.raises(DataDirError, match="falkordb.sock"):
        MemoryGraph.open(data_dir=data)


def fsync_mode(graph: MemoryGraph) -> str:
    return graph._store._db.connection.execute_command("CONFIG", "GET", "appendfsync")[1]


def test_a_shared_server_fsyncs_as_often_as_its_strictest_user_asks(tmp_path):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data, fsync="no") as lax:
        assert fsync_mode(lax) == "no"
        with MemoryGraph.open(data_dir=data) as strict:  # default: always
            assert fsync_mode(strict) == "always"
            with MemoryGraph.open(data_dir=data, fsync="everysec") as other:
                assert fsync_mode(other) == "always"  # never weakened


def test_pid_file_naming_the_server_of_another_directory_is_stale(tmp_path):
    with MemoryGraph.open(data_dir=tmp_path / "a") as a:
        other_pid = a._store.server.pid
        (tmp_path / "b").mkdir()
        (tmp_path / "b" / "falkordb.pid").write_text(str(other_pid))
        with MemoryGraph.open(data_dir=tmp_path / "b") as b:
            assert b._store.server.pid not in (None, other_pid)
            b.cypher("CREATE (:Memory {ns: 'b', id: 'only-in-b'})", write=True)
        assert pid_alive(other_pid)  # closing b left a's server alone
        assert a.cypher("MATCH (m:Memory) RETURN count(m) AS n") == [{"n": 0}]


MERGER = textwrap.dedent("""
    import sys
    from graphmem import MemoryGraph
    g = MemoryGraph.open(data_dir=sys.argv[1])
    print("ready", flush=True)
    sys.stdin.readline()  # start together
    for i in range(150):
        g.cypher("MERGE (m:Memory {ns: 'race', id: $id}) "
                 "SET m.by = coalesce(m.by, []) + [$me]",
                 {"id": f"m{i}", "me": sys.argv[2]}, write=True)
    g.close()
    print("done", flush=True)
""")


def test_processes_merging_the_same_keys_make_one_node_per_key(tmp_path):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data) as g:
        procs = [subprocess.Popen([sys.executable, "-c", MERGER, str(data), name],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                 for name in ("p", "q")]
        try:
            assert [p.stdout.readline().strip() for p in procs] == ["ready", "ready"]
            for p in procs:
                p.stdin.write("go\n")
                p.stdin.flush()
            assert [p.stdout.readline().strip() for p in procs] == ["done", "done"]
        finally:
            for p in procs:
                p.kill()
                p.wait()
        rows = g.cypher("MATCH (m:Memory {ns: 'race'}) RETURN m.id AS id, m.by AS by")
    assert len(rows) == 150
    assert all(sorted(r["by"]) == ["p", "q"] for r in rows)  # no update lost either


def test_a_server_whose_pid_file_was_deleted_is_adopted_not_doubled(tmp_path):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data) as first:
        pid = first._store.server.pid
        (data / "falkordb.pid").unlink()
        with MemoryGraph.open(data_dir=data) as second:
            assert second._store.server.pid == pid
            assert (data / "falkordb.pid").read_text().strip() == str(pid)
    assert wait_gone(pid)

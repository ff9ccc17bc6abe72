"""Who holds an embedded store's data directory: its flock, and one lease per open store.

The flock (``.lock``) is held while a server is started, stopped or leased; the kernel
drops it when its holder dies, so a crash never leaves it held. Each open store writes a
lease (``leases/<pid>-<uuid>``, holding "pid start time"); a lease whose process is gone
(or whose pid now belongs to another process) is dead, and the next close removes it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from graphmem.errors import DataDirError
from graphmem.store.processes import lease_holder_alive, process_start_time


@contextmanager
def locked(lock_path: Path, data_dir: Path, timeout_s: float) -> Iterator[None]:
    """Hold the flock of ``lock_path`` (waiting up to ``timeout_s``), with our pid in it."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise DataDirError(
            f"cannot open the lock file {lock_path}: {exc.strerror or exc}. "
            "Choose a writable directory with --data-dir or GRAPHMEM_DATA."
        ) from exc
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise DataDirError(
                        f"cannot lock {lock_path}: {exc.strerror or exc} (a "
                        "file system without flock, such as some network mounts?); "
                        "put the data directory on a local disk"
                    ) from exc
                if time.monotonic() > deadline:
                    holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
                    raise DataDirError(
                        f"data directory {data_dir} is locked by process "
                        f"{holder or '(unknown)'} for more than "
                        f"{timeout_s:g}s; wait for it to finish or stop "
                        f"that process (kill {holder or '<pid>'}), then retry"
                    ) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def take(leases_dir: Path) -> Path:
    """Write a lease for this process in ``leases_dir`` and return it."""
    lease = leases_dir / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        lease.write_text(f"{os.getpid()} {process_start_time(os.getpid())}")
    except OSError as exc:
        lease.unlink(missing_ok=True)
        raise DataDirError(f"cannot write the lease {lease}: {exc.strerror or exc}; "
                           "free space or fix the data directory, then retry") from exc
    return lease


def others_alive(leases_dir: Path, mine: Path | None) -> bool:
    """Whether a live lease other than ``mine`` is in ``leases_dir`` (read only: safe
    without the lock, for a guess that may be stale by the time it is acted on)."""
    return any(lease != mine and lease_holder_alive(lease) for lease in leases_dir.glob("*"))


def live(leases_dir: Path) -> list[Path]:
    """The leases whose process still runs; the others (left by a crash) are removed."""
    alive = []
    for lease in leases_dir.glob("*"):
        if lease_holder_alive(lease):
            alive.append(lease)
        else:
            lease.unlink(missing_ok=True)
    return alive

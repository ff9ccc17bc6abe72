"""What the kernel says of a process: alive, serving a socket, started when.

The embedded server's pid file and leases name processes by pid, and pids are reused;
these read ``/proc`` to tell a live process from a dead one, and the redis-server of one
data directory from any other program.

Imports nothing of graphmem.
"""

from __future__ import annotations

import os
from pathlib import Path


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


def serves_socket(pid: int, socket_path: Path) -> bool:
    """True when ``pid`` is the redis-server listening on ``socket_path``.

    redis-server titles itself ``redis-server unixsocket:<path>``; a pid file whose pid
    was reused by another program (or by a server of another directory) fails this.
    """
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return False  # the process is gone
    except OSError:
        return True  # no readable /proc: trust the pid
    return b"redis-server" in cmdline and f"unixsocket:{socket_path}".encode() in cmdline


def process_start_time(pid: int) -> str:
    """The kernel's start time of ``pid`` (clock ticks since boot), '' if unknown.

    A pid plus its start time names one process even after the pid is reused.
    """
    fields = _stat_fields(pid)
    return fields[19] if fields else ""


def cpu_ticks(pid: int) -> int | None:
    """The clock ticks ``pid`` has run on a CPU (user and system, every thread), None if
    unknown: a process whose count stands still is doing nothing."""
    fields = _stat_fields(pid)
    return int(fields[11]) + int(fields[12]) if fields else None  # utime, stime (14, 15)


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name, the state (field 3)
    first; None when it cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) may hold spaces; fields after it are plain
    return stat.rsplit(")", 1)[-1].split()


def lease_holder_alive(lease: Path) -> bool:
    """True when the process that wrote ``lease`` still runs (same pid, same start)."""
    try:
        pid_text, _, started = lease.read_text().partition(" ")
        pid = int(pid_text)
    except (OSError, ValueError):
        return False
    if not pid_alive(pid):
        return False
    return not started or started == process_start_time(pid)

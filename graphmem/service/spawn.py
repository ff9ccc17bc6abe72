"""Start ``graphmem serve`` as a child process and wait until it listens.

For scripts, benchmarks and tests that need a service of their own:

    with spawned_service("./mem-data") as svc:
        with Client(svc.url, svc.token) as memory: ...

The child gets a free loopback port and writes a fresh token to ``token_file`` (0600);
leaving the block stops it (SIGTERM: it closes the store cleanly).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from graphmem.errors import StoreUnavailable
from graphmem.store.local_servers import stop_process


@dataclass(frozen=True)
class SpawnedService:
    url: str
    token: str
    token_file: Path
    log_file: Path
    process: subprocess.Popen


def serve_command(*args: str) -> list[str]:
    """The ``graphmem`` command line, run by this interpreter."""
    return [sys.executable, "-c", "from graphmem.cli import main; main()", *args]


@contextmanager
def spawned_service(data_dir: str | os.PathLike, *, token_file: str | os.PathLike | None = None,
                    extra: tuple[str, ...] = (), start_timeout: float = 180.0,
                    env: dict[str, str] | None = None,
                    uri: str | None = None,
                    read_uri: str | None = None) -> Iterator[SpawnedService]:
    """``graphmem serve`` on the embedded store in ``data_dir`` (or on the store ``uri``
    names, reading from its replica ``read_uri`` if given; ``data_dir`` then holds only
    the token and the log), until the block ends."""
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    token_file = Path(token_file or data_dir / "service.token")
    log_file = data_dir.parent / f"{data_dir.name}-serve.log"
    child_env = {k: v for k, v in (env or os.environ).items()
                 if k not in ("GRAPHMEM_TOKEN", "GRAPHMEM_SERVER", "GRAPHMEM_URI",
                              "GRAPHMEM_READ_URI")}
    if read_uri:
        child_env["GRAPHMEM_READ_URI"] = read_uri
    with open(log_file, "w") as log:  # a file, not a pipe: a full pipe would block the child
        process = subprocess.Popen(
            serve_command(*(("--uri", uri) if uri else ()), "--data-dir", str(data_dir),
                          "serve", "--port", "0",
                          "--token-file", str(token_file), *extra),
            stdout=subprocess.PIPE, stderr=log, text=True, env=child_env)
        try:
            url = _announced_url(process, log_file, start_timeout)
            yield SpawnedService(url=url, token=token_file.read_text().strip(),
                                 token_file=token_file, log_file=log_file, process=process)
        finally:
            _stop(process)


def _announced_url(process: subprocess.Popen, log_file: Path, timeout: float) -> str:
    line: list[str] = []
    stdout = process.stdout
    assert stdout is not None  # started with stdout=PIPE
    reader = threading.Thread(target=lambda: line.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    if not line or "serving on " not in line[0]:
        _stop(process)
        raise StoreUnavailable(f"graphmem serve did not start within {timeout:.0f} s; its "
                               f"log ends: {log_file.read_text()[-1500:]}")
    return line[0].split("serving on ", 1)[1].split()[0]


def _stop(process: subprocess.Popen) -> None:
    stop_process(process, timeout_s=60)
    if process.stdout:
        process.stdout.close()

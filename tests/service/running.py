"""Start a real ``graphmem serve`` process for tests and stop it afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

START_TIMEOUT = 120.0


def needs(*modules: str) -> None:
    """Skip the calling module, with the reason, when an optional package is absent."""
    for name in modules:
        pytest.importorskip(name, reason=f"{name} is not installed: pip install "
                                         f"\"graphmem[{'service' if name in ('fastapi', 'uvicorn') else name}]\"")


@dataclass
class Service:
    url: str
    token: str
    token_file: Path
    data_dir: Path
    process: subprocess.Popen


def graphmem_command(*args: str) -> list[str]:
    """The ``graphmem`` command line, run by this interpreter."""
    return [sys.executable, "-c", "from graphmem.cli import main; main()", *args]


@contextmanager
def running_service(root: Path, *extra: str) -> Iterator[Service]:
    """``graphmem serve`` on a free loopback port, its token generated into a file."""
    data_dir, token_file = root / "data", root / "service.token"
    env = {k: v for k, v in os.environ.items()
           if k not in ("GRAPHMEM_TOKEN", "GRAPHMEM_SERVER", "GRAPHMEM_URI")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    log = open(root / "serve.log", "w")  # a file, not a pipe: a full pipe would block it
    process = subprocess.Popen(
        graphmem_command("--data-dir", str(data_dir), "serve", "--port", "0",
                         "--token-file", str(token_file), *extra),
        stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    try:
        url = _announced_url(process, root / "serve.log")
        yield Service(url=url, token=token_file.read_text().strip(), token_file=token_file,
                      data_dir=data_dir, process=process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _announced_url(process: subprocess.Popen, log: Path) -> str:
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(START_TIMEOUT)
    if not line or "serving on " not in line[0]:
        process.kill()
        raise RuntimeError(f"graphmem serve did not start: {line!r} {log.read_text()[-2000:]}")
    return line[0].split("serving on ", 1)[1].split()[0]

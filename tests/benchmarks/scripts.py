"""Running a benchmark script as a user would: a child process from the repository's
`benchmarks/` folder, offline, its output returned."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def completed(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``benchmarks/<script> args`` run in ``cwd``, finished (whatever its exit code)."""
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args],
                          capture_output=True, text=True, timeout=900, cwd=cwd,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})


def run(script: str, *args: str, cwd: Path) -> str:
    """What the script printed; fails the test, with its last errors, if it failed."""
    done = completed(script, *args, cwd=cwd)
    assert done.returncode == 0, f"{script} failed:\n{done.stderr[-3000:]}"
    return done.stdout


def table(lines: list[str]) -> list[dict[str, str]]:
    """The rows of the markdown table among ``lines``, by column name."""
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in lines if line.startswith("|")]
    return [dict(zip(rows[0], row)) for row in rows[2:]]

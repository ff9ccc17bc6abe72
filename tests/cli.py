"""Running the `graphmem` command line as a user does: a fresh process per command.

A command that does not finish in time fails its test with what it was doing: every
thread's stack (the process is stopped with SIGABRT, which Python's fault handler
answers by printing them) and the end of the embedded server's log."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from graphmem.store.server_log import read_tail


def graphmem(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``graphmem *args``; its output is captured as text."""
    command = [sys.executable, "-X", "faulthandler", "-c",
               "from graphmem.cli import main; main()", *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        try:
            out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
        raise AssertionError(
            f"`graphmem {' '.join(args)}` did not finish in {timeout:g} s\n"
            f"--- its stderr (stacks) ---\n{err[-6000:]}\n--- its stdout ---\n{out[-2000:]}"
            f"\n--- the server's log ---\n{server_log(args)}") from None
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def server_log(args: tuple[str, ...]) -> str:
    """The end of the embedded server's log of the command's --data-dir, if any."""
    if "--data-dir" not in args:
        return "(no --data-dir)"
    log = Path(args[args.index("--data-dir") + 1]) / "falkordb.log"
    return read_tail(log) or f"({log} is empty or absent)"

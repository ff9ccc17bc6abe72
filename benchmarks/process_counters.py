"""What a benchmark process's tail is made of, counted while it runs: the embedded
server's forks and the garbage of its indexes, the interpreter's full collections, the
major page faults of each kind of operation, and the process's resident memory.
(`memory_bench.py` reports them beside its latencies; other benchmarks read
`rss_mb`.)"""

from __future__ import annotations

import gc
import resource
import time
from pathlib import Path

from graphmem import MemoryGraph
from graphmem.store.server_log import read_tail


class ServerForks:
    """Forks of the embedded server while it is installed, counted from the lines its
    graph module logs before each one. Besides a save or a log rewrite, the server forks
    to collect the garbage of its own indexes (documents of re-indexed or deleted nodes),
    every 30 s for each index that has some; the fork copies the page tables of a server
    holding a million memories (60-70 ms measured), and writes wait meanwhile."""

    MARKER = "Fork preparation"

    def __init__(self, g: MemoryGraph) -> None:
        server = getattr(g._store, "server", None)
        self._log = server.log_path if server is not None else None
        self._offset = self._log.stat().st_size if self._log and self._log.exists() else 0

    def count(self) -> int | None:
        """Forks logged since installed; None for a server that is not embedded."""
        if self._log is None:
            return None
        return read_tail(self._log, self._offset).count(self.MARKER)


class IndexGarbage:
    """Per indexed label, while installed: the documents of garbage writes made (a node
    re-indexed or deleted: the highest document id grew more than the documents held)
    and the garbage collections run (each one a fork of the server)."""

    def __init__(self, g: MemoryGraph) -> None:
        self._g = g
        self._embedded = getattr(g._store, "server", None) is not None
        self._before = self._read() if self._embedded else {}

    def _read(self) -> dict[str, tuple[int, int, int]]:
        return {r["label"]: (r["info"]["maxDocId"], r["info"]["numDocuments"],
                             r["info"]["numCycles"])
                for r in self._g.cypher("CALL db.indexes()")}

    def count(self) -> dict[str, dict[str, int]] | None:
        """{label: {made, collections}} for the labels with either; None when the
        server is not the embedded FalkorDB."""
        if not self._embedded:
            return None
        out = {}
        for label, (top, held, cycles) in self._read().items():
            top0, held0, cycles0 = self._before.get(label, (0, 0, 0))
            made, collections = (top - top0) - (held - held0), cycles - cycles0
            if made or collections:
                out[label] = {"made": made, "collections": collections}
        return out


class FullCollections:
    """Times the interpreter's full (generation 2) collections while it is installed."""

    def __init__(self) -> None:
        self.pauses_ms: list[float] = []
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses_ms.append((time.perf_counter() - self._started) * 1000)

    def stop(self) -> None:
        gc.callbacks.remove(self._callback)

    @staticmethod
    def references() -> int:
        """References a full collection follows now (each tracked object's referents)."""
        return sum(len(gc.get_referents(o)) for o in gc.get_objects())


class FaultCount:
    """The major page faults of one kind of operation: how many operations had any,
    and how many there were."""

    def __init__(self) -> None:
        self.ops_with = self.faults = 0

    def add(self, faults: int) -> None:
        self.ops_with += faults > 0
        self.faults += faults


def majflt() -> int:
    """This process's major page faults so far (reads from disk on touch)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_majflt


def rss_mb(field: str = "VmRSS") -> float:
    """This process's resident memory (``VmRSS``), its peak (``VmHWM``), or its private
    part (``RssAnon``) or the part mapped from files (``RssFile``), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")

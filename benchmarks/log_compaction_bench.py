"""What a whole-store ``reclaim`` leaves for the next server start to replay, with and
without the log compaction it now ends with (``Store.compact_log``: BGREWRITEAOF).

    python benchmarks/log_compaction_bench.py --size 20000 [--starts 3]

Two copies of one store (generated statements, random unit vectors, no claims kept: an
import) are reclaimed, one with the compaction and one without; then each server is
started ``--starts`` times, the two in turn, and the seconds from ``MemoryGraph.open`` to
the answer of a count are printed with the append-only file's sizes and the ratio.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from graphmem import MemoryGraph
from graphmem.store.falkordb import FalkorDBStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory_bench import fill  # noqa: E402


def log_bytes(data: Path) -> dict[str, int]:
    files = list((data / "appendonlydir").iterdir())  # the base may be an RDB file
    return {kind: sum(f.stat().st_size for f in files if f".{kind}." in f.name)
            for kind in ("base", "incr")}


def reclaimed(data: Path, compact: bool) -> float:
    started = time.perf_counter()
    original = FalkorDBStore.compact_log
    if not compact:
        FalkorDBStore.compact_log = lambda self: False  # type: ignore[method-assign]
    try:
        with MemoryGraph.open(data_dir=data) as g:
            g.reclaim(batch=512)
    finally:
        FalkorDBStore.compact_log = original  # type: ignore[method-assign]
    return time.perf_counter() - started


def start_s(data: Path) -> float:
    started = time.perf_counter()
    with MemoryGraph.open(data_dir=data) as g:
        g.cypher("MATCH (m:Memory) RETURN count(m) AS n")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20000)
    parser.add_argument("--starts", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="graphmem-aof-") as tmp:
        plain, compacted = Path(tmp) / "plain", Path(tmp) / "compacted"
        with MemoryGraph.open(data_dir=plain) as g:
            fill(g, "default", args.size, random.Random(7), synthetic=True)
        shutil.copytree(plain, compacted)
        took = {"plain": reclaimed(plain, False), "compacted": reclaimed(compacted, True)}
        starts: dict[str, list[float]] = {"plain": [], "compacted": []}
        for _ in range(args.starts):
            for name, data in (("plain", plain), ("compacted", compacted)):
                starts[name].append(start_s(data))
        print(f"{args.size:,} memories reclaimed\n")
        print("| reclaim | reclaim s | log base MB | log incr MB | start s (median; all) |")
        print("|---|---:|---:|---:|---|")
        for name, data in (("plain", plain), ("compacted", compacted)):
            sizes = log_bytes(data)
            print(f"| {name} | {took[name]:.1f} | {sizes['base'] / 1e6:.1f} | "
                  f"{sizes['incr'] / 1e6:.1f} | {statistics.median(starts[name]):.2f}; "
                  + ", ".join(f"{s:.2f}" for s in starts[name]) + " |")
        ratio = statistics.median(starts["compacted"]) / statistics.median(starts["plain"])
        print(f"\nstart, compacted / plain: {ratio:.2f}")


if __name__ == "__main__":
    main()

"""The first read of a namespace into a view: whole in one reply, or a page at a time.

    python benchmarks/first_read_bench.py --size 20000

Fills a namespace as lifecycle_bench does (bulk load, real embeddings of a pool of
generated statements), then, each on a new handle with view snapshots off, reads it
into a view with ``SYNC_PAGE`` set to the whole namespace (the baseline: one reply) and
to the shipped page size, twice each in turn, and prints the wall time, what the view
keeps and the traced peak of the read (``tracemalloc``: Python and numpy allocations).
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
import tracemalloc
from pathlib import Path

from lifecycle_bench import fill
from memory_bench import settle

import graphmem.view as view_module
from graphmem import MemoryGraph


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20000)
    parser.add_argument("--distinct", type=int, default=2000)
    args = parser.parse_args()
    shipped = view_module.SYNC_PAGE
    os.environ["GRAPHMEM_VIEW_SNAPSHOTS"] = "0"
    with tempfile.TemporaryDirectory(prefix="graphmem-first-read-") as tmp:
        data = Path(tmp) / "data"
        with MemoryGraph.open(data_dir=data) as g:
            fill(g, "first-read", args.size, random.Random(3), args.distinct)
            settle(g)
        print(f"| page | first read s | kept MB | peak MB |  ({args.size:,} memories)\n"
              "|---:|---:|---:|---:|")
        for page in (args.size + 1, shipped) * 2:
            view_module.SYNC_PAGE = page
            with MemoryGraph.open(data_dir=data) as g:
                tracemalloc.start()
                started = time.perf_counter()
                g.warm("first-read")
                took = time.perf_counter() - started
                kept, peak = tracemalloc.get_traced_memory()
                tracemalloc.stop()
            label = "whole" if page > args.size else f"{page:,}"
            print(f"| {label} | {took:.1f} | {kept / 1e6:.0f} | {peak / 1e6:.0f} |", flush=True)


if __name__ == "__main__":
    main()

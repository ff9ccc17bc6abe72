"""What a service instance costs per namespace, and what reading from a replica costs.

    python benchmarks/scaleout_bench.py --sizes 5000,20000 --writes 200

Starts a FalkorDB primary and a replica (``graphmem.store.local_servers``, loopback TCP,
no persistence) and bulk-loads one namespace per size (as memory_bench does; random unit
vectors with ``--synthetic-vectors``, which cost the view the same memory as real ones).
Then:

1. **Per-namespace cost of an instance**: a fresh process opens the store, notes its
   resident memory (VmRSS), reads the namespace into its view and text index
   (``warm``), and notes it again: the difference is what one more namespace of that
   size costs each instance that serves it. Once reading from the primary, once from
   the replica. Reported per 100,000 memories by a line through the sizes.
2. **Replication lag**: after each of ``--writes`` remembers through the primary, the
   time until the replica's offset reaches the primary's.
3. **Latency, replica against primary** (the baseline, same run, interleaved): remember
   and recall p50/p95 through a handle that reads from the primary and one that reads
   from the replica, on the largest namespace.

Times are wall time on a shared machine: compare the rows of one run.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory_bench import AGENTS, fill, percentile, statement  # noqa: E402
from process_counters import rss_mb  # noqa: E402

from graphmem import MemoryGraph  # noqa: E402
from graphmem.store.local_servers import local_server  # noqa: E402

TINY = "scale-tiny"  # read first by each measuring process, to load what any view needs


def measure_view(uri: str, read_uri: str | None, ns: str, traced: bool) -> dict:
    """In this (fresh) process: resident memory before and after reading ``ns`` (and
    after handing freed heap back to the system); with ``traced``, the bytes Python and
    numpy hold after the read, and at its peak (tracemalloc: slower, so timed apart)."""
    os.environ["GRAPHMEM_VIEW_SNAPSHOTS"] = "0"  # the cost of a read from the store
    with MemoryGraph.open(uri=uri, read_uri=read_uri) as g:
        g.warm(TINY)  # libraries, connections and queries loaded; no view of ns yet
        before = rss_mb()
        if traced:
            tracemalloc.start()
        started = time.perf_counter()
        g.warm(ns)
        seconds = time.perf_counter() - started
        if traced:
            live, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            return {"live_mb": round(live / 2**20, 1), "peak_mb": round(peak / 2**20, 1)}
        after = rss_mb()
        ctypes.CDLL("libc.so.6").malloc_trim(0)
        trimmed = rss_mb()
    return {"rss_before_mb": round(before, 1), "view_rss_mb": round(after - before, 1),
            "view_rss_trimmed_mb": round(trimmed - before, 1), "warm_s": round(seconds, 2)}


def view_in_child(uri: str, read_uri: str | None, ns: str, traced: bool = False) -> dict:
    command = [sys.executable, __file__, "--measure-view", uri, ns]
    if read_uri:
        command += ["--read-uri", read_uri]
    if traced:
        command += ["--traced"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def replica_lag_ms(primary, replica, g: MemoryGraph, ns: str, writes: int,
                   rng: random.Random) -> list[float]:
    p, r = primary.client(), replica.client()
    lags = []
    for _ in range(writes):
        g.remember(rng.choice(AGENTS), statement(rng), ns=ns)
        target = p.info("replication")["master_repl_offset"]
        started = time.perf_counter()
        while r.info("replication").get("slave_repl_offset", -1) < target:
            time.sleep(0.0001)
        lags.append((time.perf_counter() - started) * 1000)
    p.close()
    r.close()
    return lags


def latencies(handles: dict[str, MemoryGraph], ns: str, ops: int,
              rng: random.Random) -> dict[str, dict[str, float]]:
    times: dict[str, dict[str, list[float]]] = {k: {"remember": [], "recall": []}
                                                for k in handles}
    for _ in range(ops):
        for name, g in handles.items():  # interleaved: both see the same load
            agent = rng.choice(AGENTS)
            started = time.perf_counter()
            g.remember(agent, statement(rng), ns=ns)
            times[name]["remember"].append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            g.recall(agent, f"What did Ana find on day {rng.randint(1, 3000)}?", ns=ns, k=10)
            times[name]["recall"].append((time.perf_counter() - started) * 1000)
    return {name: {f"{op}_{q}": round(percentile(v, p), 1)
                   for op, v in ops_.items() for q, p in (("p50", 0.5), ("p95", 0.95))}
            for name, ops_ in times.items()}


def per_100k(rows: list[dict], key: str) -> float:
    """The slope of ``key`` over size, per 100,000 memories (least squares through 0)."""
    num = sum(r["size"] * r[key] for r in rows)
    den = sum(r["size"] ** 2 for r in rows)
    return round(num / den * 100_000, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="5000,20000")
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--ops", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--synthetic-vectors", action="store_true")
    parser.add_argument("--measure-view", nargs=2, metavar=("URI", "NS"), help=argparse.SUPPRESS)
    parser.add_argument("--read-uri", help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_view:
        print(json.dumps(measure_view(args.measure_view[0], args.read_uri,
                                      args.measure_view[1], args.traced)))
        return
    rng = random.Random(args.seed)
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp, \
            local_server(Path(tmp) / "primary") as primary, \
            local_server(Path(tmp) / "replica", replica_of=primary) as replica, \
            MemoryGraph.open(uri=primary.uri) as writer:
        views = []
        fill(writer, TINY, 50, rng, synthetic=args.synthetic_vectors)
        for size in sizes:
            ns = f"scale-{size}"
            fill_s = fill(writer, ns, size, rng, synthetic=args.synthetic_vectors)
            with primary.client() as c:
                c.execute_command("WAIT", 1, 60_000)
            for source, read_uri in (("primary", None), ("replica", replica.uri)):
                row = {"size": size, "reads_from": source, "fill_s": round(fill_s, 1),
                       **view_in_child(primary.uri, read_uri, ns),
                       **view_in_child(primary.uri, read_uri, ns, traced=True)}
                views.append(row)
                print(json.dumps(row), flush=True)
        lags = replica_lag_ms(primary, replica, writer, "lag", args.writes, rng)
        lag = {"writes": len(lags), "lag_ms_p50": round(percentile(lags, 0.5), 2),
               "lag_ms_p95": round(percentile(lags, 0.95), 2),
               "lag_ms_max": round(max(lags), 2)}
        print(json.dumps(lag), flush=True)
        with MemoryGraph.open(uri=primary.uri, read_uri=replica.uri,
                              embedder=writer.embedder) as replicated:
            ns = f"scale-{sizes[-1]}"
            writer.warm(ns)
            replicated.warm(ns)
            lat = latencies({"primary": writer, "replica": replicated}, ns, args.ops, rng)
        print(json.dumps(lat), flush=True)
    print("\nper-namespace view cost per instance, per 100k memories (a line through "
          f"the sizes {args.sizes}):")
    for source in ("primary", "replica"):
        rows = [r for r in views if r["reads_from"] == source]
        print(f"  reading from the {source}: held by Python and numpy after the read "
              f"{per_100k(rows, 'live_mb')} MB (peak during it {per_100k(rows, 'peak_mb')} MB); "
              f"resident memory grows {per_100k(rows, 'view_rss_mb')} MB "
              f"({per_100k(rows, 'view_rss_trimmed_mb')} MB after malloc_trim); "
              f"the read takes {per_100k(rows, 'warm_s')} s")
    print(f"replication lag after a remember: p50 {lag['lag_ms_p50']} ms, "
          f"p95 {lag['lag_ms_p95']} ms, max {lag['lag_ms_max']} ms ({lag['writes']} writes)")
    for name, row in lat.items():
        print(f"  reads from the {name}: remember p50 {row['remember_p50']} / p95 "
              f"{row['remember_p95']} ms, recall p50 {row['recall_p50']} / p95 "
              f"{row['recall_p95']} ms")


if __name__ == "__main__":
    main()

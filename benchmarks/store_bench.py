"""Store benchmark: latency of the basic graph operations on the embedded backend.

For each size it fills a fresh embedded store (its own data directory) with that many
``(:Memory {ns, id, text, recorded_at})`` nodes, one ``(:Agent)`` per 100 memories, and
``(:Agent)-[:OWNS]->(:Memory)`` edges (every memory has one owner, every fifth a second),
written by batched UNWIND statements. It then times single operations through the Store
interface, the way graphmem runs them:

    baseline      RETURN 1                         (one round trip, no graph work)
    write_floor   SET a property on a lone probe node (one round trip + one fsync)
    merge_update  MERGE a Memory by (ns, id) that exists, SET one property
    merge_create  MERGE a Memory by (ns, id) that does not exist yet, SET one property
    agent_owns    (:Agent {ns, id})-[:OWNS]->(:Memory) LIMIT 10   (one hop out)
    owners_of     (:Memory {ns, id})<-[:OWNS]-(:Agent)             (one hop in)

and prints p50 / p95 / p99 in milliseconds with the ratio of each p50 to the baseline p50
measured in the same run, the fill rate, and the footprint on disk of the data directory
(as written, and after the server compacts its append-only file).

    python benchmarks/store_bench.py                       # 10,000 and 100,000 nodes
    python benchmarks/store_bench.py --sizes 10000 --ops 200 --json
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import redis

from graphmem import MemoryGraph

NS = "bench"
BATCH = 5_000
MEMORIES_PER_AGENT = 100

FILL_AGENTS = "UNWIND $ids AS id CREATE (:Agent {ns: $ns, id: id, kind: 'ai'})"
FILL_MEMORIES = """
UNWIND $rows AS row
MATCH (a:Agent {ns: $ns, id: row.owner})
CREATE (a)-[:OWNS {since: row.t, via: 'seeded'}]->
       (:Memory {ns: $ns, id: row.id, text: row.text, recorded_at: row.t, kind: 'episodic'})
"""
FILL_SECOND_OWNERS = """
UNWIND $rows AS row
MATCH (a:Agent {ns: $ns, id: row.owner}), (m:Memory {ns: $ns, id: row.id})
CREATE (a)-[:OWNS {since: row.t, via: 'told'}]->(m)
"""
OPS = {
    "baseline": ("read", "RETURN 1 AS one"),
    "write_floor": ("write", "MERGE (p:BenchProbe {id: 0}) SET p.t = $t"),
    "merge_update": ("write", "MERGE (m:Memory {ns: $ns, id: $id}) SET m.touched = $t"),
    "merge_create": ("write", "MERGE (m:Memory {ns: $ns, id: $id}) SET m.touched = $t"),
    "agent_owns": ("read", "MATCH (:Agent {ns: $ns, id: $id})-[:OWNS]->(m:Memory) "
                           "RETURN m.id AS id, m.text AS text LIMIT 10"),
    "owners_of": ("read", "MATCH (:Memory {ns: $ns, id: $id})<-[:OWNS]-(a:Agent) "
                          "RETURN a.id AS id"),
}


def fill_store(graph: MemoryGraph, size: int, rng: random.Random) -> float:
    """Write ``size`` memories with their agents and ownership; return seconds taken."""
    agents = max(1, size // MEMORIES_PER_AGENT)
    started = time.perf_counter()
    agent_ids = [f"a{i}" for i in range(agents)]
    for lo in range(0, agents, BATCH):
        graph._store.write(FILL_AGENTS, {"ns": NS, "ids": agent_ids[lo:lo + BATCH]})
    for lo in range(0, size, BATCH):
        rows = [{"id": f"m{i}", "owner": f"a{i % agents}", "t": 1_700_000_000_000 + i,
                 "text": f"memory {i}: agent a{i % agents} noted item {rng.randrange(10**6)}"}
                for i in range(lo, min(size, lo + BATCH))]
        graph._store.write(FILL_MEMORIES, {"ns": NS, "rows": rows})
        second = [{"id": r["id"], "owner": f"a{(int(r['id'][1:]) + 1) % agents}", "t": r["t"]}
                  for r in rows if int(r["id"][1:]) % 5 == 0 and agents > 1]
        if second:
            graph._store.write(FILL_SECOND_OWNERS, {"ns": NS, "rows": second})
    return time.perf_counter() - started


def params_for(op: str, size: int, n: int, rng: random.Random) -> Callable[[int], dict]:
    """Parameters of the ``i``-th call of ``op``: random existing keys, or fresh ones."""
    agents = max(1, size // MEMORIES_PER_AGENT)
    if op == "merge_create":
        return lambda i: {"ns": NS, "id": f"new-{i}", "t": i}
    if op == "agent_owns":
        return lambda i: {"ns": NS, "id": f"a{rng.randrange(agents)}"}
    if op in ("merge_update", "owners_of"):
        return lambda i: {"ns": NS, "id": f"m{rng.randrange(size)}", "t": i}
    if op == "write_floor":
        return lambda i: {"t": i}
    return lambda i: {}


def time_op(graph: MemoryGraph, op: str, size: int, n: int, warmup: int,
            rng: random.Random) -> list[float]:
    """Latencies in ms of ``n`` calls of ``op`` after ``warmup`` untimed calls."""
    mode, query = OPS[op]
    run = graph._store.write if mode == "write" else graph._store.read
    make = params_for(op, size, n, rng)
    for i in range(warmup):
        run(query, {**make(i), "id": f"warm-{i}"} if op == "merge_create" else make(i))
    latencies = []
    for i in range(n):
        params = make(i)
        started = time.perf_counter()
        run(query, params)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


def percentile(values: list[float], q: float) -> float:
    """The ``q``-quantile (0..1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def dir_bytes(path: Path) -> int:
    """Bytes the files under ``path`` occupy on disk (like du)."""
    return sum(p.lstat().st_blocks * 512 for p in path.rglob("*") if p.is_file())


def compact_append_only(client: redis.Redis) -> None:
    """Ask the server to rewrite its append-only file and wait until it is done."""
    client.bgrewriteaof()
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        info = client.info("persistence")
        if not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]:
            return
        time.sleep(0.1)
    raise TimeoutError("append-only rewrite did not finish in 300 s")


def bench_size(size: int, ops: int, warmup: int, fsync: str, root: Path,
               seed: int) -> dict[str, Any]:
    """Fill a fresh store to ``size`` memories and time every operation on it."""
    rng = random.Random(seed)
    data = root / f"store-{size}"
    with MemoryGraph.open(data_dir=data, fsync=fsync) as graph:
        client = redis.Redis(unix_socket_path=str(graph._store.server.socket_path),
                             decode_responses=True)
        fill_s = fill_store(graph, size, rng)
        counts = graph.cypher("MATCH (m:Memory {ns: $ns}) WITH count(m) AS memories "
                              "MATCH (:Agent {ns: $ns})-[r:OWNS]->() "
                              "RETURN memories, count(r) AS owns", {"ns": NS})[0]
        latencies = {op: time_op(graph, op, size, ops, warmup, rng) for op in OPS}
        disk_written = dir_bytes(data)
        compact_append_only(client)
        disk_compacted = dir_bytes(data)
        memory = client.info("memory")["used_memory"]
        fsync_mode = client.config_get("appendfsync")["appendfsync"]
        client.close()
    base = statistics.median(latencies["baseline"])
    return {
        "size": size, "memories": counts["memories"], "owns_edges": counts["owns"],
        "agents": max(1, size // MEMORIES_PER_AGENT), "fill_s": round(fill_s, 2),
        "fill_nodes_per_s": round(size / fill_s), "fsync": fsync_mode, "ops": ops,
        "disk_bytes_written": disk_written, "disk_bytes_compacted": disk_compacted,
        "server_used_memory_bytes": memory,
        "latency_ms": {
            op: {"p50": round(statistics.median(v), 3), "p95": round(percentile(v, 0.95), 3),
                 "p99": round(percentile(v, 0.99), 3),
                 "p50_over_baseline": round(statistics.median(v) / base, 2)}
            for op, v in latencies.items()
        },
    }


def print_markdown(results: list[dict[str, Any]]) -> None:
    """The results as markdown tables: latencies, then fill and footprint."""
    print("| nodes | operation | p50 ms | p95 ms | p99 ms | p50 / baseline p50 |")
    print("|---:|---|---:|---:|---:|---:|")
    for r in results:
        for op, lat in r["latency_ms"].items():
            print(f"| {r['size']:,} | {op} | {lat['p50']:.3f} | {lat['p95']:.3f} | "
                  f"{lat['p99']:.3f} | {lat['p50_over_baseline']:.2f}x |")
    print()
    print("| nodes | OWNS edges | fill s | fill nodes/s | disk as written | disk compacted "
          "| server memory | fsync |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        print(f"| {r['memories']:,} | {r['owns_edges']:,} | {r['fill_s']} | "
              f"{r['fill_nodes_per_s']:,} | {mib(r['disk_bytes_written'])} | "
              f"{mib(r['disk_bytes_compacted'])} | {mib(r['server_used_memory_bytes'])} | "
              f"{r['fsync']} |")


def mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000",
                        help="comma-separated node counts (default 10000,100000)")
    parser.add_argument("--ops", type=int, default=500, help="timed calls per operation")
    parser.add_argument("--warmup", type=int, default=50, help="untimed calls first")
    parser.add_argument("--fsync", default="always", choices=["always", "everysec", "no"])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="keep the stores here (default: a temporary directory, removed)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    root = args.data_dir or Path(tempfile.mkdtemp(prefix="graphmem-bench-"))
    try:
        results = [bench_size(size, args.ops, args.warmup, args.fsync, root, args.seed)
                   for size in sizes]
    finally:
        if args.data_dir is None:
            shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_markdown(results)


if __name__ == "__main__":
    main()

"""Maintenance (Intelligent Decay) at scale: how long one ``maintain`` pass takes.

Fills a namespace with N memories (bulk load, as memory_bench does), reads it into the
view, then times ``maintain`` as of 90 days later with the default decay settings and a
threshold that puts a share of the memories under it, beside the first view sync of the
same store (a baseline measured in the same run). Target: under 60 s at 100,000.

The memories' texts come from a pool of ``--distinct`` generated statements embedded by
the real model once each (embedding 100,000 texts is not what is measured, and takes
longer than the rest on a loaded machine); every memory is its own record. CPU seconds
(this process and the embedded server together) are reported beside wall seconds: other
load on the machine inflates the wall time, not the CPU time.

Run:  HF_HUB_OFFLINE=1 python benchmarks/lifecycle_bench.py --sizes 10000,100000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

from memory_bench import AGENTS, settle, statement

from graphmem import MemoryGraph

DAY_MS = 24 * 60 * 60 * 1000


def fill(g: MemoryGraph, ns: str, n: int, rng: random.Random, distinct: int,
         batch: int = 2000) -> None:
    """``n`` memories (bulk load: no judging) whose texts come from a pool of ``distinct``
    statements, each embedded once by the real model."""
    for agent in AGENTS:
        g.register_agent(agent, kind="ai", ns=ns)
    pool = [statement(rng) for _ in range(min(distinct, n))]
    vectors = [[float(x) for x in v] for v in g.embedder.embed(pool)]
    for lo in range(0, n, batch):
        rows = []
        for i in range(lo, min(lo + batch, n)):
            j = rng.randrange(len(pool))
            rows.append({"id": f"bulk-{i}", "text": pool[j], "t": 1_600_000_000_000 + i,
                         "owners": rng.sample(AGENTS, rng.randint(1, 3)),
                         "embedding": vectors[j]})
        g.query("bulk/load_memories", {"ns": ns, "seq": 1, "rows": rows}, write=True)
    g.query("bulk/set_version", {"ns": ns, "version": 1}, write=True)


def server_cpu_s(data_dir: Path) -> float:
    """CPU seconds the embedded FalkorDB server has used so far (0 when unknown)."""
    try:
        pid = int((data_dir / "falkordb.pid").read_text().strip())
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def measure(size: int, data_dir: Path, seed: int, threshold: float, distinct: int) -> dict:
    rng = random.Random(seed)
    ns = f"decay-{size}"
    with MemoryGraph.open(data_dir=data_dir) as g:
        g.embedder.embed(["warm up"])
        fill(g, ns, size, rng, distinct)
        settle(g)
        started = time.perf_counter()
        g.warm(ns)
        sync_s = time.perf_counter() - started
        g.set_task("agent-0", "Find out who moved the crates in the warehouse.", ns=ns)
        g.set_decay(ns=ns, threshold=threshold)
        learned = g.cypher("MATCH (m:Memory {ns: $ns}) RETURN max(m.recorded_at) AS t",
                           {"ns": ns})[0]["t"]
        started, cpu, server = time.perf_counter(), time.process_time(), server_cpu_s(data_dir)
        report = g.maintain(ns=ns, now=learned + 90 * DAY_MS)
        maintain_s = time.perf_counter() - started
        maintain_cpu_s = time.process_time() - cpu + server_cpu_s(data_dir) - server
    return {"memories": size, "view_sync_s": round(sync_s, 2),
            "maintain_s": round(maintain_s, 2), "maintain_cpu_s": round(maintain_cpu_s, 2),
            "maintain_over_sync": round(maintain_s / sync_s, 2) if sync_s else None,
            "below_threshold": report["below_threshold"], "pruned": len(report["pruned"]),
            "consolidated": len(report["consolidated"]), "promoted": len(report["promoted"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--threshold", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--distinct", type=int, default=5000,
                        help="distinct statements embedded for the fill")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="graphmem-decay-") as tmp:
            results.append(measure(size, Path(tmp) / "data", args.seed, args.threshold,
                                   args.distinct))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print("| memories | maintain s | maintain CPU s (client + server) | first view sync s | ratio | "
          "under threshold | pruned | consolidated | promoted |\n"
          "|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['memories']:,} | {r['maintain_s']} | {r['maintain_cpu_s']} | "
              f"{r['view_sync_s']} | "
              f"{r['maintain_over_sync']} | {r['below_threshold']:,} | {r['pruned']:,} | "
              f"{r['consolidated']:,} | {r['promoted']:,} |")


if __name__ == "__main__":
    main()

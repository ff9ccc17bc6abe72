"""Maintenance (Intelligent Decay) at scale: how long one ``maintain`` pass takes.

Fills a namespace with N memories (bulk load, as memory_bench does), reads it into the
view, then times ``maintain`` as of 90 days later with the default decay settings and a
threshold that puts a share of the memories under it, beside the first view sync of the
same store (a baseline measured in the same run). Target: under 60 s at 100,000.

Run:  HF_HUB_OFFLINE=1 python benchmarks/lifecycle_bench.py --sizes 10000,100000
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from memory_bench import fill, settle

from graphmem import MemoryGraph

DAY_MS = 24 * 60 * 60 * 1000


def measure(size: int, data_dir: Path, seed: int, threshold: float) -> dict:
    rng = random.Random(seed)
    ns = f"decay-{size}"
    with MemoryGraph.open(data_dir=data_dir) as g:
        g.embedder.embed(["warm up"])
        fill(g, ns, size, rng)
        settle(g)
        started = time.perf_counter()
        g.warm(ns)
        sync_s = time.perf_counter() - started
        g.set_task("agent-0", "Find out who moved the crates in the warehouse.", ns=ns)
        g.set_decay(ns=ns, threshold=threshold)
        learned = g.cypher("MATCH (m:Memory {ns: $ns}) RETURN max(m.recorded_at) AS t",
                           {"ns": ns})[0]["t"]
        started = time.perf_counter()
        report = g.maintain(ns=ns, now=learned + 90 * DAY_MS)
        maintain_s = time.perf_counter() - started
    return {"memories": size, "view_sync_s": round(sync_s, 2),
            "maintain_s": round(maintain_s, 2),
            "maintain_over_sync": round(maintain_s / sync_s, 2) if sync_s else None,
            "below_threshold": report["below_threshold"], "pruned": len(report["pruned"]),
            "consolidated": len(report["consolidated"]), "promoted": len(report["promoted"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--threshold", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="graphmem-decay-") as tmp:
            results.append(measure(size, Path(tmp) / "data", args.seed, args.threshold))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print("| memories | maintain s | first view sync s | ratio | under threshold | pruned | "
          "consolidated | promoted |\n|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['memories']:,} | {r['maintain_s']} | {r['view_sync_s']} | "
              f"{r['maintain_over_sync']} | {r['below_threshold']:,} | {r['pruned']:,} | "
              f"{r['consolidated']:,} | {r['promoted']:,} |")


if __name__ == "__main__":
    main()

"""The store's own vector index (HNSW) against the exact scan of the in-process view.

    python benchmarks/ann_bench.py --size 100000 --queries 200

Fills a namespace as memory_bench does (generated statements, real embeddings, bulk
load), then for each query (a new generated statement, embedded):

- exact: the view's exact top 10 by cosine (``NamespaceView.nearest`` over every row, and
  over one agent's rows: recall is owner-scoped);
- HNSW: FalkorDB's ``db.idx.vector.queryNodes`` (an index this benchmark creates:
  graphmem itself keeps none) for the top ``10 x f`` (f = over-fetch),
  kept to the namespace (and to the agent's memories for the scoped figure), cut to 10;

and reports recall@10 of HNSW against exact, latency p50/p95 of both, and the resident
memory of the process after the view is read (VmRSS). The first view read is timed too.

A fixed over-fetch fails an agent that owns a small share of the namespace: of the top
10 x f of the whole namespace only about share x 10 x f are its own. The ``adaptive``
rows fetch ``ceil(10 x margin / share)`` (the agent's share of the namespace is known
from the view), so that about ``10 x margin`` owned memories come back whatever the share.
Latency is noisy on a shared machine: compare the two columns of one run, not runs.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory_bench import (AGENTS, fill, percentile, settle,  # noqa: E402
                          statement, synthetic_vectors)
from process_counters import rss_mb  # noqa: E402

from graphmem import MemoryGraph  # noqa: E402

ANN_QUERY = ("CALL db.idx.vector.queryNodes('Memory', 'embedding', $k, vecf32($v)) "
             "YIELD node, score WHERE node.ns = $ns RETURN node.id AS id, score")


def store_of(g):
    return getattr(g, "store", None) or g._store


def measure(size: int, n_queries: int, overfetch: list[int], data_dir: Path, seed: int,
            adaptive: tuple[float, ...] = (1.5, 3.0), synthetic: bool = False) -> dict:
    rng = random.Random(seed)
    ns = f"ann-{size}"
    out: dict = {"memories": size, "vectors": "synthetic (random unit; queries too)"
                 if synthetic else "all-MiniLM-L6-v2"}
    with MemoryGraph.open(data_dir=data_dir) as g:
        g.embedder.embed(["warm up"])
        # graphmem keeps no vector index of its own (nothing of it reads one): the
        # benchmark makes the HNSW it measures, built as the fill writes
        store_of(g).write(g._views.queries["schema/memory_embedding"])
        out["rss_mb_before_fill"] = round(rss_mb())
        out["fill_s"] = round(fill(g, ns, size, rng, synthetic=synthetic), 1)
        settle(g)
        t = time.perf_counter()
        view = g._views.synced(ns)
        out["first_view_read_s"] = round(time.perf_counter() - t, 1)
        out["rss_mb_with_view"] = round(rss_mb())
        texts = [statement(rng) for _ in range(n_queries)]
        queries = synthetic_vectors(texts, size + 1) if synthetic else g.embedder.embed(texts)
        agent = AGENTS[0]
        rows = view.owned_rows(agent)
        store = store_of(g)
        results = {}
        for scope in ("namespace", "one agent"):
            exact_ms, exact_ids = [], []
            for q in queries:
                t = time.perf_counter()
                hits = view.nearest(q, 10, None if scope == "namespace" else rows)
                exact_ms.append((time.perf_counter() - t) * 1000)
                exact_ids.append({m for m, _ in hits})
            results[scope] = {"exact_p50_ms": round(percentile(exact_ms, .5), 2),
                              "exact_p95_ms": round(percentile(exact_ms, .95), 2)}
            for f in overfetch:
                ann_ms, recalls = [], []
                for q, truth in zip(queries, exact_ids):
                    t = time.perf_counter()
                    got = store.read(ANN_QUERY, {"k": 10 * f, "v": [float(x) for x in q],
                                                 "ns": ns})
                    ids = [r["id"] for r in got if scope == "namespace"
                           or view.owns(agent, r["id"])][:10]
                    ann_ms.append((time.perf_counter() - t) * 1000)
                    recalls.append(len(truth & set(ids)) / max(1, len(truth)))
                results[scope][f"hnsw x{f}"] = {
                    "recall@10": round(float(np.mean(recalls)), 3),
                    "p50_ms": round(percentile(ann_ms, .5), 2),
                    "p95_ms": round(percentile(ann_ms, .95), 2)}
            share = len(rows) / size if scope == "one agent" else 1.0
            for margin in adaptive:
                fetch = min(size, math.ceil(10 * margin / share))
                ann_ms, recalls = [], []
                for q, truth in zip(queries, exact_ids):
                    t = time.perf_counter()
                    got = store.read(ANN_QUERY, {"k": fetch, "v": [float(x) for x in q],
                                                 "ns": ns})
                    ids = [r["id"] for r in got if scope == "namespace"
                           or view.owns(agent, r["id"])][:10]
                    ann_ms.append((time.perf_counter() - t) * 1000)
                    recalls.append(len(truth & set(ids)) / max(1, len(truth)))
                results[scope][f"hnsw adaptive x{margin:g}/share (fetch {fetch})"] = {
                    "recall@10": round(float(np.mean(recalls)), 3),
                    "p50_ms": round(percentile(ann_ms, .5), 2),
                    "p95_ms": round(percentile(ann_ms, .95), 2)}
        out["scopes"] = results
        out["agent_share"] = round(len(rows) / size, 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--overfetch", default="1,4,16")
    parser.add_argument("--adaptive", default="1.5,3",
                        help="margins of the adaptive over-fetch (10 x margin / share)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--synthetic-vectors", action="store_true",
                        help="random unit vectors for the memories and the queries (harder "
                             "for HNSW than real embeddings, which cluster)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="graphmem-ann-") as tmp:
        result = measure(args.size, args.queries, [int(x) for x in args.overfetch.split(",")],
                         Path(tmp) / "data", args.seed,
                         tuple(float(x) for x in args.adaptive.split(",")),
                         args.synthetic_vectors)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

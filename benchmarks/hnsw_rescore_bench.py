"""FalkorDB's HNSW with exact rescoring, on cached real vectors, against the exact top 10.

    python benchmarks/hnsw_rescore_bench.py --vectors DIR [--queries 400]

``DIR/v*.npy`` as for ivf_bench (e.g. MiniLM embeddings of real sentences, cached
outside the repository). ``--queries`` of them are held out as queries; the rest are
written as nodes of a scratch graph with a vector index (graphmem itself keeps none).
For each fetch size: ``db.idx.vector.queryNodes`` returns that many candidates, they are
rescored exactly (cosine against the vectors in process) and cut to 10; recall@10
against the exact top 10 over the whole set, and over a random tenth of the rows (one
agent's share: candidates outside it are dropped, so the fetch must grow as the share
shrinks). Latency includes the query and the rescoring. On a shared machine compare
the rows of one run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ivf_bench import load_vectors  # noqa: E402
from memory_bench import percentile  # noqa: E402

from graphmem import MemoryGraph  # noqa: E402

KNN = ("CALL db.idx.vector.queryNodes('M', 'embedding', $k, vecf32($v)) YIELD node "
       "RETURN node.row AS row")


def measure(graph, base: np.ndarray, queries: np.ndarray, scope: np.ndarray | None,
            fetch: int) -> dict:
    ms, found = [], []
    for q in queries:
        exact = base @ q
        if scope is not None:
            exact[~scope] = -np.inf
        want = set(np.argsort(-exact)[:10].tolist())
        started = time.perf_counter()
        rows = graph.query(KNN, {"k": fetch, "v": [float(x) for x in q]}).result_set
        got = np.array([r[0] for r in rows], dtype=np.int64)
        if scope is not None:
            got = got[scope[got]]
        top = got[np.argsort(-(base[got] @ q))[:10]] if len(got) else got
        ms.append((time.perf_counter() - started) * 1000)
        found.append(len(set(top.tolist()) & want) / 10)
    return {"recall@10": round(float(np.mean(found)), 4), "p50_ms": round(percentile(ms, .5), 2),
            "p95_ms": round(percentile(ms, .95), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    vectors = load_vectors(args.vectors, None)
    held_out = np.random.default_rng(args.seed).permutation(len(vectors))
    queries, base = vectors[held_out[:args.queries]], vectors[np.sort(held_out[args.queries:])]
    tenth = np.random.default_rng(args.seed + 1).random(len(base)) < 0.1
    out: dict = {"rows": len(base), "queries": len(queries)}
    with tempfile.TemporaryDirectory() as tmp, MemoryGraph.open(data_dir=Path(tmp) / "d") as g:
        import falkordb

        graph = falkordb.FalkorDB(unix_socket_path=str(g._views.store.server.socket_path)) \
            .select_graph("hnsw-bench")
        graph.query("CREATE VECTOR INDEX FOR (m:M) ON (m.embedding) "
                    "OPTIONS {dimension: 384, similarityFunction: 'cosine'}")
        started = time.perf_counter()
        for lo in range(0, len(base), 2000):
            graph.query("UNWIND $rows AS r CREATE (:M {row: r.row, embedding: vecf32(r.v)})",
                        {"rows": [{"row": lo + i, "v": [float(x) for x in v]}
                                  for i, v in enumerate(base[lo:lo + 2000])]})
        out["fill_with_index_s"] = round(time.perf_counter() - started, 1)
        out["whole"] = {f"fetch_{f}": measure(graph, base, queries, None, f)
                        for f in (10, 20, 50, 100)}
        out["a_tenth"] = {f"fetch_{f}": measure(graph, base, queries, tenth, f)
                          for f in (200, 500, 1000)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

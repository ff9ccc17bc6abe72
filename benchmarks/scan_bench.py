"""The view's exact scan: a half-precision copy scored first, against single precision.

    python benchmarks/scan_bench.py --rows 1000000 --queries 40

`NamespaceView.nearest_exact` scores every row of a scope. Until 2026-12-03 it scored a
float16 copy of the vectors first (torch's kernel, above 4,096 rows) and rescored the
best ``k`` + `RESCORE_MARGIN` in float32 (``half``); now it scores the float32 rows
alone (numpy, one BLAS thread, as every product of the views runs): the scope's rows
gathered first (``single``), or, for a scope of most of the rows, every row in one
contiguous pass and the scope's scores picked out (``whole``). On random unit vectors,
for scopes of several sizes (an agent's rows, scattered over the matrix) and for the
whole matrix, each query the same on every way, the ways in turn. Prints, per size,
each way's p50, the ratios to ``single``, and whether all found the same 50 rows.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from graphmem.view_search import RESCORE_MARGIN, one_blas_thread

DIMENSION = 384


def _half_way(matrix: np.ndarray, half: np.ndarray, rows: np.ndarray | None,
              vector: np.ndarray, k: int) -> np.ndarray:
    import torch

    part = half if rows is None else half[rows]
    query = torch.from_numpy(np.ascontiguousarray(vector, dtype=np.float16))
    coarse = (torch.from_numpy(part) @ query).float().numpy()
    fetch = min(k + RESCORE_MARGIN, len(coarse))  # a scope smaller than that: all of it
    keep = np.argpartition(-coarse, fetch - 1)[:fetch]
    candidates = keep if rows is None else rows[keep]
    scores = matrix[candidates] @ vector
    return candidates[np.argsort(-scores, kind="stable")[:k]]


def _single_way(matrix: np.ndarray, rows: np.ndarray | None, vector: np.ndarray,
                k: int, whole: bool = False) -> np.ndarray:
    """``whole``: the scope's scores picked out of a pass over every row (contiguous)
    instead of its rows gathered first."""
    scores = matrix @ vector if rows is None else \
        (matrix @ vector)[rows] if whole else matrix[rows] @ vector
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.argsort(-scores[top], kind="stable")]
    return top if rows is None else rows[top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--scopes", default="5000,20000,50000,100000",
                        help="scope sizes (rows scattered over the matrix)")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--k", type=int, default=50)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((args.rows, DIMENSION), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    half = matrix.astype(np.float16)
    import torch  # imported before timing (the view imports it on first use)

    out = {"rows": args.rows, "torch_threads": torch.get_num_threads(), "sizes": {}}
    sizes = [int(s) for s in args.scopes.split(",") if int(s) < args.rows] + [args.rows]
    with one_blas_thread():
        for size in sizes:
            rows = None if size == args.rows else \
                np.sort(rng.choice(args.rows, size, replace=False))
            ways = ("half", "single") if rows is None else ("half", "single", "whole")
            times: dict[str, list[float]] = {way: [] for way in ways}
            same = 0
            for q in range(args.queries + 2):  # the first two warm up
                vector = matrix[rng.integers(args.rows)] + \
                    rng.standard_normal(DIMENSION).astype(np.float32) * 0.05
                vector /= np.linalg.norm(vector)
                found = {}
                for way in ways[q % len(ways):] + ways[:q % len(ways)]:  # in turn
                    t = time.perf_counter()
                    found[way] = (_half_way(matrix, half, rows, vector, args.k) if way == "half"
                                  else _single_way(matrix, rows, vector, args.k, way == "whole"))
                    if q >= 2:
                        times[way].append((time.perf_counter() - t) * 1000)
                same += q >= 2 and len({frozenset(f.tolist()) for f in found.values()}) == 1
            p50 = {way: statistics.median(times[way]) for way in ways}
            out["sizes"][f"{'all' if rows is None else 'scope'} {size}"] = {
                **{f"{way}_p50_ms": round(ms, 2) for way, ms in p50.items()},
                "half_over_single": round(p50["half"] / p50["single"], 2),
                **({"whole_over_single": round(p50["whole"] / p50["single"], 2)}
                   if "whole" in p50 else {}),
                "same_top_k": f"{same}/{args.queries}"}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

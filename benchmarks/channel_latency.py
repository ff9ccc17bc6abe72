"""Recall latency of the shipped weight table against another, and of each channel alone.

    python benchmarks/channel_latency.py --unit conv-30 --against c6a8ac8

Ingests one LoCoMo conversation into a temporary store (as ``graphmem eval`` does), asks
each of its questions once to embed it, then times ``recall(..., k=20)`` under the table
of ``--against`` (``graphmem/retrieval/config.py`` at that commit: its
``DEFAULT_KIND_WEIGHTS`` and ``_BASE_WEIGHTS``) and under the shipped one, alternating,
``--repeats`` times; then each channel's ``rank`` alone (depth 50). On a shared machine
the absolute figures are noisy: read the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from shared_data import SHARED_DATA

ROOT = Path(__file__).resolve().parent.parent
TIMED_CHANNELS = ("dense", "bm25", "time", "profile", "said", "hop", "hop_dense", "deposit",
                  "spread")


def table_at(commit: str):
    """HYBRID with the weight tables of ``config.py`` at ``commit``."""
    from graphmem.retrieval.classify import QueryKind
    from graphmem.retrieval.config import HYBRID

    source = subprocess.run(["git", "show", f"{commit}:graphmem/retrieval/config.py"],
                            capture_output=True, text=True, cwd=ROOT, check=True).stdout
    block = source[source.index("DEFAULT_KIND_WEIGHTS: dict"):
                   source.index("# a registered channel the shipped fit")]
    scope: dict = {"QueryKind": QueryKind, "Channel": str}
    exec(block, scope)  # a literal table from the repository's own history
    zero = {c: 0.0 for c in HYBRID.channels}
    return HYBRID.model_copy(update={
        "weights": {**zero, **scope["_BASE_WEIGHTS"]},
        "kind_weights": {k: {**zero, **t} for k, t in scope["DEFAULT_KIND_WEIGHTS"].items()}})


def percentiles(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    return (f"p50 {1000 * ordered[len(ordered) // 2]:.1f} ms, "
            f"p95 {1000 * ordered[int(0.95 * len(ordered))]:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unit", default="conv-30")
    parser.add_argument("--against", default="c6a8ac8")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--locomo", type=Path, default=SHARED_DATA / "locomo")
    args = parser.parse_args()

    from graphmem import MemoryGraph
    from graphmem.evaluation.ingest import ingest_unit, namespace_for
    from graphmem.ingestion.benchmarks import load_benchmark
    from graphmem.retrieval.channels import CHANNELS, RankContext
    from graphmem.retrieval.config import HYBRID
    from graphmem.retrieval.query import parse_query

    other = table_at(args.against)
    unit = next(u for u in load_benchmark("locomo", args.locomo, skip_bad=True).units
                if u.id == args.unit)
    with MemoryGraph.open(data_dir=Path(tempfile.mkdtemp()) / "data") as graph:
        ns = namespace_for(unit.benchmark, unit.id)
        ingest_unit(graph, unit, ns)
        graph.warm(ns)
        asked = [(q.asker or unit.agents[0], q.text) for q in unit.questions if q.evidence]
        for agent, text in asked:
            graph.recall(agent, text, k=20, ns=ns)
        times: dict[str, list[float]] = {args.against: [], "shipped": []}
        for _ in range(args.repeats):
            for agent, text in asked:
                for name, config in ((args.against, other), ("shipped", HYBRID)):
                    started = time.perf_counter()
                    graph.recall(agent, text, k=20, ns=ns, config=config)
                    times[name].append(time.perf_counter() - started)
        for name, seconds in times.items():
            print(f"{name}: {percentiles(seconds)} ({len(seconds)} recalls)")
        ratios = [b / a for a, b in zip(times[args.against], times["shipped"])]
        print(f"shipped / {args.against}, per recall: median {statistics.median(ratios):.2f}")
        view = graph._views.synced(ns)
        text_index = graph._views.text_index(ns)
        alone: dict[str, list[float]] = {c: [] for c in TIMED_CHANNELS}
        for agent, text in asked:
            query = parse_query(text, view=view, agent=agent, config=HYBRID,
                                embed_soon=graph.embedder.embed_soon, agent_names=lambda: {})
            query.embedding.result()  # embedded on a thread: wait here, not in a channel
            ctx = RankContext(view, text_index, agent, view.owned_ids(agent))
            for name in TIMED_CHANNELS:
                started = time.perf_counter()
                ctx.ranked[name] = CHANNELS[name].rank(ctx, query, 50)
                alone[name].append(time.perf_counter() - started)
        print(f"{len(view)} memories; each channel alone, median: " + ", ".join(
            f"{c} {1000 * statistics.median(v):.2f} ms" for c, v in alone.items()))


if __name__ == "__main__":
    main()

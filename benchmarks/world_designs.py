"""One world on every memory design through the same kernel: structure of what each
writes, and the targets checked.

    python benchmarks/world_designs.py --world hamlet --rounds 10 --out /tmp/worlds/hamlet
    python benchmarks/world_designs.py --world hongloumeng --rounds 80 --designs consensus \\
        --snapshots 10,20,40,80 --out /tmp/worlds/horizon

Worlds: hamlet, hongloumeng, sanguoyanyi, russia_ukraine (``graphmem.worlds.sources``).
Each design runs in its own namespace of one embedded store, with the full seeded
history and the deterministic policy following the held-out rest. Prints one row per
design (entries the simulation wrote, multi-owner and linked share, deepest merge,
recall amplification, overlap of conversing vs. silent pairs), the targets (consensus
writes fewer entries than every baseline; only consensus shares and links; nomerge
multiplies the store and shares nothing; conversing pairs overlap at least ten times
more; amplification <= 1.0), the multi-owner share at each ``--snapshots`` round of
each run (one run, its per-round rows), and writes ``summary.json`` and a growth chart.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from graphmem import MemoryGraph
from graphmem.worlds.memory import graph_design
from graphmem.worlds.policy import ScriptPolicy
from graphmem.worlds.report import growth_chart, load_run, summary_rows
from graphmem.worlds.run import RunSpec, run_world
from graphmem.worlds.sources import WORLDS, sediment_world

DESIGNS = ("consensus", "nomerge", "private", "two-tier", "shared-acl")
BASELINES = ("private", "two-tier", "shared-acl")


def targets(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Each target of the issue, with the figures it is read from (None: not run)."""
    by = {r["design"]: r for r in rows}
    con = by.get("consensus")
    if con is None:
        return {}
    others = [d for d in (*BASELINES, "nomerge") if d in by]
    nomerge = by.get("nomerge")
    talk, silent = con["talk_overlap"], con["silent_overlap"]
    return {
        "consensus_fewest_entries": all(con["written"] < by[d]["written"] for d in others)
        if others else None,
        "only_consensus_shares": con["multi_owner"] > 0 and all(
            by[d]["multi_owner"] == 0 for d in others),
        "only_consensus_links_among_baselines": con["linked"] > 0 and all(
            by[d]["linked"] == 0 for d in BASELINES if d in by),
        "nomerge_ratio": round(nomerge["written"] / con["written"], 2)
        if nomerge and con["written"] else None,
        "nomerge_shares_nothing": nomerge["multi_owner"] == 0 if nomerge else None,
        "conversing_over_silent": round(talk / silent, 1) if silent else None,
        "conversing_tenfold": talk >= 10 * silent and talk > 0,
        "amplification_at_most_1": all(r["amplification"] <= 1.0 for r in rows),
    }


def snapshots(runs: list[dict[str, Any]], at: list[int]) -> dict[str, dict[int, float]]:
    """Multi-owner share after round ``n`` (1-based) of each run, from its rows."""
    out = {}
    for run in runs:
        rows = {r["round"] + 1: r for r in run["rounds"]}
        out[run["report"]["design"]] = {n: rows[n]["multi_owner_share"] for n in at if n in rows}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", choices=list(WORLDS), default="hamlet")
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--horizon", type=int, default=None)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--designs", default=",".join(DESIGNS))
    parser.add_argument("--snapshots", default="10,20,40,80",
                        help="Rounds at which to report the multi-owner share.")
    args = parser.parse_args()
    sediment = sediment_world(args.world, args.data, args.horizon)
    runs = []
    for design in args.designs.split(","):
        started = time.perf_counter()
        with MemoryGraph.open(data_dir=args.data_dir or args.out / "data",
                              design=graph_design(design)) as g:
            run_world(g, sediment, ScriptPolicy(sediment.script),
                      RunSpec(args.world, design, args.rounds, args.out / design))
        runs.append(load_run(args.out / design))
        print(f"{design}: {time.perf_counter() - started:.0f} s with seeding", flush=True)
    rows = summary_rows(runs)
    checks = targets(rows)
    shares = snapshots(runs, [int(x) for x in args.snapshots.split(",") if x])
    (args.out / "summary.json").write_text(json.dumps(
        {"world": args.world, "rounds": args.rounds, "rows": rows, "targets": checks,
         "snapshots": shares}, indent=2))
    growth_chart(runs, args.out / "growth.png")
    keys = list(rows[0])
    print("\t".join(keys))
    for r in rows:
        print("\t".join(str(r[k]) for k in keys))
    for name, value in checks.items():
        print(f"target {name}: {value}")
    for design, at in shares.items():
        print(f"multi-owner share of {design} by round: {at}")


if __name__ == "__main__":
    main()

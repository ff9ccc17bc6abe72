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

``--seed-limit N`` deposits only the first N deposits of the seeded history: a quick look
(seeding Hamlet's first three acts takes about a minute per design), not the reported
figures; ``summary.json`` records the limit.

    python benchmarks/world_designs.py --world hamlet --rounds 2 --seed-limit 20 \
        --out /tmp/worlds/quick
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

from graphmem import MemoryGraph
from graphmem.worlds.memory import graph_design
from graphmem.worlds.policy import ScriptPolicy
from graphmem.worlds.report import growth_chart, load_run, shares_at, summary_rows, targets
from graphmem.worlds.run import RunSpec, run_world
from graphmem.worlds.sources import WORLDS, sediment_world

DESIGNS = ("consensus", "nomerge", "private", "two-tier", "shared-acl")


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
    parser.add_argument("--seed-limit", type=int, default=None, metavar="N",
                        help="Seed only the first N deposits of the history, for a quick "
                             "look (default: all of it, as reported).")
    args = parser.parse_args()
    sediment = sediment_world(args.world, args.data, args.horizon)
    if args.seed_limit is not None:
        sediment = dataclasses.replace(sediment, seed=sediment.seed[: args.seed_limit])
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
    shares = shares_at(runs, [int(x) for x in args.snapshots.split(",") if x])
    (args.out / "summary.json").write_text(json.dumps(
        {"world": args.world, "rounds": args.rounds, "seed_limit": args.seed_limit,
         "rows": rows, "targets": checks, "snapshots": shares}, indent=2))
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

"""Hamlet on every memory design through the same kernel: structure of what each writes.

    python benchmarks/world_designs.py --rounds 10 --out /tmp/worlds [--data-dir D]

Each design runs in its own namespace of one embedded store, with the full seeded
history (Acts I–III) and the deterministic policy following Acts IV–V. Prints one row
per design (entries the simulation wrote, multi-owner and linked share, deepest merge,
recall amplification, overlap of conversing vs. silent pairs), the nomerge/consensus
entry ratio, and writes ``summary.json`` and a growth chart into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from graphmem import MemoryGraph
from graphmem.worlds.hamlet import sediment_hamlet
from graphmem.worlds.memory import graph_design
from graphmem.worlds.policy import ScriptPolicy
from graphmem.worlds.report import growth_chart, load_run, summary_rows
from graphmem.worlds.run import RunSpec, run_world

DESIGNS = ("consensus", "nomerge", "private", "two-tier", "shared-acl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/hamlet/hamlet.tei.xml"))
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--horizon", type=int, default=40)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--designs", default=",".join(DESIGNS))
    args = parser.parse_args()
    sediment = sediment_hamlet(args.data, horizon=args.horizon)
    runs = []
    for design in args.designs.split(","):
        started = time.perf_counter()
        with MemoryGraph.open(data_dir=args.data_dir or args.out / "data",
                              design=graph_design(design)) as g:
            run_world(g, sediment, ScriptPolicy(sediment.script),
                      RunSpec("hamlet", design, args.rounds, args.out / design))
        runs.append(load_run(args.out / design))
        print(f"{design}: {time.perf_counter() - started:.0f} s with seeding", flush=True)
    rows = summary_rows(runs)
    written = {r["design"]: r["written"] for r in rows}
    ratio = written["nomerge"] / written["consensus"] if written.get("consensus") and \
        "nomerge" in written else None
    (args.out / "summary.json").write_text(json.dumps({"rows": rows, "nomerge_ratio": ratio},
                                                      indent=2))
    growth_chart(runs, args.out / "growth.png")
    keys = list(rows[0])
    print("\t".join(keys))
    for r in rows:
        print("\t".join(str(r[k]) for k in keys))
    if ratio:
        print(f"nomerge/consensus entries written: {ratio:.2f}")


if __name__ == "__main__":
    main()

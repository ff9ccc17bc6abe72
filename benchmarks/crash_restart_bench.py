"""How long a store takes to open after its server died, by how far the server lets the
tail of its append-only file grow before it rewrites the file on its own.

    python benchmarks/crash_restart_bench.py --size 20000 --writes 1500

A clean close rewrites a long tail (`graphmem.store.aof`); a crash (the server killed,
the machine lost) leaves whatever tail there was, and the next start replays it query by
query, at a few MB/s against some 200 MB/s for the base. Redis rewrites on its own once
the tail reaches ``auto-aof-rewrite-percentage`` of the base (and the whole file
``auto-aof-rewrite-min-size``). This fills one store (bulk load, synthetic vectors, each
memory with its claims as the write path keeps them: a store without them makes every
remember parse older statements, and the remember figures would measure that), then
for each setting, on its own copy of that store: ``--writes`` remembers through the
write path (each one's latency, and the server's forks meanwhile), the server killed with
SIGKILL, the tail it left, then the time to open the store again (the server loads its
file) and to run a first recall (the view catches up with the writes its snapshot
lacks), and whether every memory is there. Redis' own defaults (100 %, 64 MB) are the baseline
row; times are wall time on a shared machine: compare the rows of one run.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory_bench import AGENTS, fill, settle, statement  # noqa: E402
from process_counters import ServerForks  # noqa: E402

from graphmem import MemoryGraph  # noqa: E402
from graphmem.store import aof  # noqa: E402

NS = "crash"
QUESTION = "What did Ana do with the spare key?"
#: Redis' own: rewrite once the tail has doubled the file, and never below 64 MB
REDIS_DEFAULT = (100, 64 * 1024 * 1024)


def configure(g: MemoryGraph, percent: int, min_bytes: int) -> None:
    """Set the running server's automatic rewrite (what it was started with is
    overridden: the comparison is of the setting, not of how it got there)."""
    connection = g._store._db.connection
    connection.config_set("auto-aof-rewrite-percentage", percent)
    connection.config_set("auto-aof-rewrite-min-size", min_bytes)


def count(g: MemoryGraph) -> int:
    return g.cypher("MATCH (m:Memory {ns: $ns}) RETURN count(m) AS n", {"ns": NS})[0]["n"]


def run_setting(store: Path, percent: int, min_bytes: int, writes: int, seed: int) -> dict:
    rng = random.Random(seed)  # every setting writes the same statements
    latencies = []
    with MemoryGraph.open(data_dir=store) as g:
        configure(g, percent, min_bytes)
        g.recall(AGENTS[0], QUESTION, k=10, ns=NS)  # the view read before the timing
        forks = ServerForks(g)
        for i in range(writes):
            started = time.perf_counter()
            g.remember(rng.choice(AGENTS), f"{statement(rng)} (after the fill {i})", ns=NS)
            latencies.append((time.perf_counter() - started) * 1000)
        base, tail = aof.parts(store / "appendonlydir")
        forked, written = forks.count(), count(g)
        if not g._store.server.kill(timeout_s=30):
            raise SystemExit("the embedded server outlived SIGKILL for 30 s")
    started = time.perf_counter()  # the server is dead: this open starts it
    with MemoryGraph.open(data_dir=store) as again:
        open_s = time.perf_counter() - started  # the server loaded its file
        hits = again.recall(AGENTS[0], QUESTION, k=10, ns=NS)
        reopen_s = time.perf_counter() - started  # and the view caught up
        held = count(again)
    cuts = statistics.quantiles(latencies, n=100)
    return {"rewrite_percent": percent, "rewrite_min_mb": round(min_bytes / 2**20, 1),
            "remember_p50_ms": round(statistics.median(latencies), 1),
            "remember_p95_ms": round(cuts[94], 1), "remember_max_ms": round(max(latencies), 1),
            "server_forks": forked, "aof_base_mb_at_crash": round(base / 1e6, 1),
            "aof_tail_mb_at_crash": round(tail / 1e6, 1),
            "open_after_crash_s": round(open_s, 2),
            "open_and_first_recall_after_crash_s": round(reopen_s, 2),
            "hits": len(hits), "every_memory_kept": held == written}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20_000)
    parser.add_argument("--writes", type=int, default=1_500)
    parser.add_argument("--percents", default="10,25",
                        help="the auto-aof-rewrite-percentage settings to compare with "
                             "Redis' default (comma-separated)")
    parser.add_argument("--min-mb", type=float, default=aof.MIN_TAIL_BYTES / 2**20,
                        help="their auto-aof-rewrite-min-size, in MB")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    settings = [REDIS_DEFAULT] + [(int(p), int(args.min_mb * 2**20))
                                  for p in args.percents.split(",") if p.strip()]
    out: dict = {"memories": args.size, "writes": args.writes, "settings": []}
    with tempfile.TemporaryDirectory(prefix="graphmem-crash-") as tmp:
        filled = Path(tmp) / "filled"
        with MemoryGraph.open(data_dir=filled) as g:
            out["fill_s"] = round(fill(g, NS, args.size, random.Random(args.seed),
                                       synthetic=True, claims=True), 1)
            settle(g)
            g._store.compact_log()  # every copy starts from one base, with no tail
            # read once, so that the close saves the view and its text index: every copy
            # starts from a whole snapshot, as a store that was running does
            g.recall(AGENTS[0], QUESTION, k=10, ns=NS)
        for n, (percent, min_bytes) in enumerate(settings):
            store = Path(tmp) / f"setting-{n}"
            shutil.copytree(filled, store, ignore=shutil.ignore_patterns(
                "*.sock", "*.pid", "leases", ".lock"))
            out["settings"].append(run_setting(store, percent, min_bytes, args.writes,
                                               args.seed))
            shutil.rmtree(store)
            print(json.dumps(out["settings"][-1]), file=sys.stderr)
    base = out["settings"][0]["open_after_crash_s"]
    for row in out["settings"]:
        row["open_vs_redis_default"] = round(row["open_after_crash_s"] / base, 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

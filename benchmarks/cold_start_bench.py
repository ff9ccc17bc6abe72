"""The first recall after opening a store, with and without a view snapshot.

    python benchmarks/cold_start_bench.py --size 100000

Fills a namespace as memory_bench does (bulk load, real embeddings). One handle stays
open throughout, so the embedded server keeps running and only the view is cold. Then,
each on a new handle:

1. no snapshot (GRAPHMEM_VIEW_SNAPSHOTS=0): the first recall reads the whole namespace;
2. the first recall with snapshots on: it reads the namespace too, and writes the
   snapshot (its cost is timed apart);
3. the first recall on a new handle: it restores the snapshot;
4. the same after ``--writes`` new memories were remembered by another handle: restore,
   then catch up with ``changed_since``.

Then the whole start of a process that finds the server stopped: the server loads its
append-only files (a base, and a tail of the writes since, replayed query by query) and
the view its snapshot. First with the tail the stop left (the holder's server stopped as
it was before a last close rewrote the file), then after that start's own close, the
last, rewrote it (`graphmem.store.aof`; its close is timed).

Also the resident memory of the process (VmRSS) and the snapshot's size on disk. Times
are wall time on a shared machine: compare the rows of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory_bench import AGENTS, fill, settle, statement  # noqa: E402
from process_counters import rss_mb  # noqa: E402

from graphmem import MemoryGraph  # noqa: E402
from graphmem import view_snapshot  # noqa: E402
from graphmem.store import aof  # noqa: E402

QUESTION = "What did Ana do with the spare key?"


def first_recall(data_dir: Path, ns: str) -> tuple[float, list[str]]:
    """Seconds to open a handle and run its first recall, and what it returned."""
    started = time.perf_counter()
    with MemoryGraph.open(data_dir=data_dir) as g:
        hits = g.recall(AGENTS[0], QUESTION, k=10, ns=ns)
        elapsed = time.perf_counter() - started
        # a handle that read the whole namespace writes the snapshot on close: time apart
        closing = time.perf_counter()
    return elapsed, [h.memory_id for h in hits], time.perf_counter() - closing


def measure(size: int, writes: int, data_dir: Path, seed: int, synthetic: bool = False) -> dict:
    rng = random.Random(seed)
    ns = f"cold-{size}"
    out: dict = {"memories": size, "vectors": "synthetic (random unit)" if synthetic
                 else "all-MiniLM-L6-v2"}
    with MemoryGraph.open(data_dir=data_dir) as holder:  # keeps the server up
        holder.embedder.embed(["warm up"])
        stored = holder.cypher("MATCH (m:Memory {ns: $ns}) RETURN count(m) AS n", {"ns": ns})
        if stored[0]["n"] == 0:
            out["fill_s"] = round(fill(holder, ns, size, rng, synthetic=synthetic), 1)
        else:  # a store filled by an earlier run (--data-dir)
            out["filled_before"] = stored[0]["n"]
        settle(holder)
        directory = view_snapshot.snapshot_dir(holder._views.store, ns)
        shutil.rmtree(directory, ignore_errors=True)
        os.environ["GRAPHMEM_VIEW_SNAPSHOTS"] = "0"
        t, cold, _ = first_recall(data_dir, ns)
        out["first_recall_no_snapshot_s"] = round(t, 2)
        os.environ.pop("GRAPHMEM_VIEW_SNAPSHOTS")
        t, built, save_s = first_recall(data_dir, ns)
        out["first_recall_building_snapshot_s"] = round(t, 2)
        out["snapshot_write_s"] = round(save_s, 2)
        out["snapshot_mb"] = round(sum(p.stat().st_size for p in directory.iterdir()) / 1e6, 1)
        t, warm, _ = first_recall(data_dir, ns)
        out["first_recall_from_snapshot_s"] = round(t, 2)
        out["same_hits"] = cold == built == warm
        latest = warm
        if writes:
            for i in range(writes):
                holder.remember(rng.choice(AGENTS), f"{statement(rng)} (new {i})", ns=ns)
            t, latest, _ = first_recall(data_dir, ns)
            out[f"first_recall_from_snapshot_after_{writes}_writes_s"] = round(t, 2)
        out["rss_mb"] = round(rss_mb())
        # the whole start, the server stopped too: first as a stop left it before the
        # append-only file was rewritten at the last close (stopped under the holder)
        aof_dir = data_dir / "appendonlydir"
        out["aof_base_mb"], out["aof_tail_mb"] = (round(b / 1e6, 1) for b in aof.parts(aof_dir))
        holder._store.server.stop()
    t, tailed, close_s = first_recall(data_dir, ns)  # its close is the last: rewrites
    out["start_and_first_recall_with_tail_s"] = round(t, 2)
    out["last_close_s"] = round(close_s, 2)
    out["aof_tail_mb_after_last_close"] = round(aof.parts(aof_dir)[1] / 1e6, 1)
    t, rewritten, _ = first_recall(data_dir, ns)
    out["start_and_first_recall_after_rewrite_s"] = round(t, 2)
    out["same_hits_after_restarts"] = latest == tailed == rewritten
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--writes", type=int, default=50)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--data-dir", type=Path,
                        help="a store to fill once and measure again (default: a new "
                             "temporary one)")
    parser.add_argument("--synthetic-vectors", action="store_true",
                        help="fill with random unit vectors instead of embeddings (the "
                             "cold start reads the same bytes; the fill takes minutes, not "
                             "an hour, on a loaded machine)")
    args = parser.parse_args()
    if args.size < view_snapshot.SAVE_AFTER_ROWS:
        parser.error(f"--size {args.size} is too small to measure: a view writes its "
                     f"snapshot once it has read {view_snapshot.SAVE_AFTER_ROWS} memories; "
                     "pass at least that many")
    if args.data_dir:
        print(json.dumps(measure(args.size, args.writes, args.data_dir, args.seed,
                                 args.synthetic_vectors), indent=2))
        return
    with tempfile.TemporaryDirectory(prefix="graphmem-cold-") as tmp:
        print(json.dumps(measure(args.size, args.writes, Path(tmp) / "data", args.seed,
                                 args.synthetic_vectors), indent=2))


if __name__ == "__main__":
    main()

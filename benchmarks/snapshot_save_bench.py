"""What saving a view snapshot costs a process: seconds, the peak of resident memory over
what it held before, and what it keeps after, private and mapped from files; and which
step of the save held the peak (the main thread's stack, sampled every 50 ms).

    python benchmarks/snapshot_save_bench.py --data-dir /tmp/mb/size-1000000 \\
        --ns bench-1000000 [--json]

The store is opened as a new process would (its view restored from the snapshot by a
first recall), and the view is saved into a temporary directory beside nothing the
store uses, so the store's own snapshot is left as it was. Run it on memory_bench's
stores (``--data-dir DIR/size-N --ns bench-N``). To compare two builds, run it with each
on the same store, in turn.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

from graphmem import MemoryGraph, view_snapshot
from process_counters import rss_mb

FIELDS = (("rss_mb", "VmRSS"), ("private_mb", "RssAnon"), ("mapped_mb", "RssFile"))


class Sampler:
    """Resident memory and the main thread's innermost calls, every ``every_s``."""

    def __init__(self, every_s: float = 0.05) -> None:
        self.every_s, self.samples = every_s, []
        self._stop = threading.Event()
        self._main = threading.main_thread().ident
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            frame = sys._current_frames().get(self._main)
            calls = [f"{Path(f.filename).stem}.{f.name}"
                     for f in traceback.extract_stack(frame)[-3:]] if frame else []
            self.samples.append((time.perf_counter(), rss_mb(), " < ".join(reversed(calls))))
            time.sleep(self.every_s)

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def reset_peak() -> bool:
    """Reset this process's VmHWM to its VmRSS (Linux: 5 into /proc/self/clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def measure(data_dir: Path, ns: str) -> dict:
    with MemoryGraph.open(data_dir=data_dir) as g:
        g.recall("bench-asker", "What did Ana do with the spare key?", k=10, ns=ns)
        views = g._views
        view = views.synced(ns)
        if len(view) == 0:
            raise SystemExit(f"namespace {ns!r} of {data_dir} holds no memories: give --ns "
                             "a namespace of the store (memory_bench's are bench-N)")
        text_index = views._text_indexes.get(ns)
        fp = view_snapshot.fingerprint(views.store, views.queries, ns)
        before = {name: round(rss_mb(field)) for name, field in FIELDS}
        peak_before = rss_mb("VmHWM")
        reset = reset_peak()  # VmHWM from here on is the save's own peak
        out = Path(tempfile.mkdtemp(prefix="graphmem-save-bench-")) / "snapshot"
        try:
            start = time.perf_counter()
            with Sampler() as sampler:
                view_snapshot.save(out, view, text_index, fp)
            seconds = time.perf_counter() - start
            written_mb = sum(p.stat().st_blocks * 512 for p in out.rglob("*")) / 2**20
        finally:
            shutil.rmtree(out.parent, ignore_errors=True)
        after = {name: round(rss_mb(field)) for name, field in FIELDS}
        peak = max([rss_mb("VmHWM") if reset else 0.0] +
                   [rss for _, rss, _ in sampler.samples])
    steps: dict[str, float] = {}
    for (t0, _, calls), (t1, _, _) in zip(sampler.samples, sampler.samples[1:]):
        steps[calls] = steps.get(calls, 0.0) + (t1 - t0)
    highest = max(sampler.samples, key=lambda s: s[1], default=(0, 0, ""))
    return {"memories": len(view), "save_s": round(seconds, 1),
            "written_mb_on_disk": round(written_mb),
            "before": before, "after": after,
            "peak_over_before_mb": round(peak - before["rss_mb"]),
            "peak_before_the_save_mb": round(peak_before),
            # the kernel's count when it could be reset, else the samples' (which can
            # miss a peak shorter than 50 ms)
            "peak_measured_by": "VmHWM" if reset else "samples",
            "kept_private_mb": after["private_mb"] - before["private_mb"],
            "peak_step": highest[2],
            "slowest_steps_s": {calls: round(s, 1) for calls, s in
                                sorted(steps.items(), key=lambda kv: -kv[1])[:5]}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--ns", required=True)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.data_dir.is_dir():
        parser.error(f"--data-dir {args.data_dir} is no directory: give a store's data "
                     "directory (memory_bench's are DIR/size-N)")
    result = measure(args.data_dir, args.ns)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['memories']:,} memories: the save took {result['save_s']} s and wrote "
          f"{result['written_mb_on_disk']} MB; resident memory peaked "
          f"{result['peak_over_before_mb']} MB over the {result['before']['rss_mb']} MB held "
          f"before (in {result['peak_step']}), and kept {result['kept_private_mb']} MB more "
          f"private memory after ({result['before']} -> {result['after']})")
    for calls, seconds in result["slowest_steps_s"].items():
        print(f"  {seconds} s in {calls}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

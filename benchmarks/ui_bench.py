"""How fast does the timeline answer at 10,000 memories?

Builds a namespace of N synthetic memories (distinct sentences from several agents over
three years, through MemoryGraph.remember_many: the real write path, real embeddings),
serves it with graphmem.ui on 127.0.0.1 and times over HTTP, as the page asks:

  first      the page and its first fetch (/ then /api/page?page=1), once, cold
  page 1     /api/page?page=1&size=100, repeated
  middle     the middle page of 100, repeated
  last       the last page of 100, repeated
  first act  the first pin through /api/act, once: the handle's view of the namespace
             loads then (the curation API checks the memory against it) — unless
             ``--warm``, which does Timeline.prepare first, as ``graphmem ui`` does in
             the background (the view, and the model when an agent has a task)
  act        a pin then an unpin through /api/act, repeated
  baseline   /api/agents (one tiny query): the cost of a request itself

Reports the median and p95 in ms, and each as a ratio to the baseline of the same run
(the machine is shared: absolute figures are noisy, the ratios less so).

``--fill remember`` (default) writes every memory through remember_many. On a loaded
machine that is slow (about 3 deposits a second at load 20 on 2 cores), so
``--fill bulk`` fills a fresh namespace ``bulk`` with the bulk loader memory_bench uses
(the same sentences embedded by the same model, written without judging or merging, in
one version step): what the timeline reads is the same kind of node, owners and vector.

    python benchmarks/ui_bench.py [--n 10000] [--repeat 20] [--data-dir DIR]
                                  [--fill remember|bulk] [--warm] [--task TEXT]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path

from graphmem import MemoryGraph
from graphmem.ui import Timeline, serve

SUBJECTS = ["the parser", "the billing job", "the search index", "the release", "the API",
            "the mobile app", "the nightly backup", "the onboarding flow", "the cache",
            "the dashboard", "the data export", "the login page"]
VERBS = ["was moved to", "was delayed until", "was reviewed on", "failed on",
         "was approved on", "was rewritten for", "was measured on", "was demoed on"]
PLACES = ["Berlin", "Lisbon", "Osaka", "Toronto", "Nairobi", "Lima", "Oslo", "Perth"]


def deposits(n: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    start = time.mktime((2022, 1, 1, 0, 0, 0, 0, 0, 0))
    out = []
    for i in range(n):
        when = start + rng.uniform(0, 3 * 365 * 86400)
        text = (f"Ticket {i}: {rng.choice(SUBJECTS)} {rng.choice(VERBS)} "
                f"{time.strftime('%d %B %Y', time.gmtime(when))} by team "
                f"{rng.choice(PLACES)} ({rng.randint(1, 999)} points).")
        out.append({"agent": f"agent{i % 5}", "text": text, "at": int(when * 1000)})
    return out


def remember_fill(g: MemoryGraph, todo: list[dict], *, start: int) -> None:
    g.remember_many(todo)


def bulk_fill(g: MemoryGraph, todo: list[dict], *, start: int, batch: int = 500) -> None:
    if start:
        raise SystemExit("--fill bulk fills an empty namespace in one step; this one has "
                         f"{start} memories (use another --data-dir)")
    for agent in sorted({d["agent"] for d in todo}):
        g.register_agent(agent, ns="bulk")
    seq = 1
    for lo in range(0, len(todo), batch):
        chunk = todo[lo:lo + batch]
        vectors = g.embedder.embed([d["text"] for d in chunk])
        rows = [{"id": f"bulk-{start + lo + i}", "text": d["text"], "t": d["at"],
                 "owners": [d["agent"]], "embedding": [float(x) for x in v]}
                for i, (d, v) in enumerate(zip(chunk, vectors))]
        g.query("bulk/load_memories", {"ns": "bulk", "seq": seq, "rows": rows}, write=True)
    g.query("bulk/set_version", {"ns": "bulk", "version": seq}, write=True)


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--fill", choices=["remember", "bulk"], default="remember")
    parser.add_argument("--task", default=None,
                        help="set this task for every agent first (the page then reads "
                             "the vectors for the relevance term E)")
    parser.add_argument("--warm", action="store_true",
                        help="load the namespace view before timing (graphmem ui does)")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="reuse a store built by an earlier run (default: a temp dir)")
    args = parser.parse_args()
    data = args.data_dir or Path(tempfile.mkdtemp(prefix="ui-bench-"))
    ns = "bulk" if args.fill == "bulk" else "default"
    count = "MATCH (m:Memory {ns: $ns}) RETURN count(m) AS n"
    with MemoryGraph.open(data_dir=data) as g:
        have = g.cypher(count, {"ns": ns})[0]["n"]
        if have < args.n:
            t0 = time.perf_counter()
            fill = bulk_fill if args.fill == "bulk" else remember_fill
            fill(g, deposits(args.n)[have:], start=have)
            print(f"{args.fill}: {args.n - have} deposits in {time.perf_counter() - t0:.0f} s "
                  f"(the store held {have})")
        total = g.cypher(count, {"ns": ns})[0]["n"]
        if args.task:
            for row in g.query("ui/agents", {"ns": ns}):
                g.set_task(row["id"], args.task, ns=ns)
        timeline = Timeline(g, ns=ns)
        warm_ms = None
        if args.warm:
            t0 = time.perf_counter()
            timeline.prepare()
            warm_ms = (time.perf_counter() - t0) * 1000
        server = serve(timeline, by="bench").start()
        base = f"http://127.0.0.1:{server.port}"

        def get(path: str) -> bytes:
            sep = "&" if "?" in path else "?"
            with urllib.request.urlopen(f"{base}{path}{sep}token={server.token}") as r:
                return r.read()

        def post(path: str, payload: dict) -> bytes:
            req = urllib.request.Request(f"{base}{path}?token={server.token}",
                                         data=json.dumps(payload).encode(),
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req) as r:
                return r.read()

        try:
            t0 = time.perf_counter()
            get("/")
            first = json.loads(get("/api/page?page=1&size=100"))
            cold = (time.perf_counter() - t0) * 1000
            pages = first["pages"]
            target = first["items"][0]["id"]
            t0 = time.perf_counter()
            post("/api/act", {"action": "unpin", "id": target, "by": "bench"})
            first_act = (time.perf_counter() - t0) * 1000
            figures = {
                "baseline": timed(lambda: get("/api/agents"), args.repeat),
                "page 1": timed(lambda: get("/api/page?page=1&size=100"), args.repeat),
                # page 0 is refused: a store of one page has only that one to read
                "middle": timed(lambda: get(f"/api/page?page={max(1, pages // 2)}&size=100"),
                                args.repeat),
                "last": timed(lambda: get(f"/api/page?page={pages}&size=100"), args.repeat),
                "act": timed(lambda: (post("/api/act", {"action": "pin", "id": target,
                                                         "by": "bench"}),
                                      post("/api/act", {"action": "unpin", "id": target,
                                                        "by": "bench"})), args.repeat),
            }
        finally:
            server.stop()
    print(f"task: {args.task!r}")
    print(f"{total} memories in {ns!r} ({args.fill}), {pages} pages of 100; first page cold (/ + /api/page): "
          f"{cold:.0f} ms; first act {first_act:.0f} ms"
          + (f" (after warm: {warm_ms:.0f} ms)" if warm_ms is not None else ""))
    base_ms = statistics.median(figures["baseline"])
    for name, values in figures.items():
        values = sorted(values)
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        print(f"{name:9s} median {statistics.median(values):7.1f} ms  p95 {p95:7.1f} ms  "
              f"x{statistics.median(values) / base_ms:5.1f} baseline")
    print("(act = a pin and an unpin: two requests)")


if __name__ == "__main__":
    main()

"""How fast does the timeline answer at 10,000 memories?

Builds a namespace of N synthetic memories (distinct sentences from several agents over
three years, through MemoryGraph.remember_many: the real write path, real embeddings),
serves it with graphmem.ui on 127.0.0.1 and times over HTTP, as the page asks:

  first      the page and its first fetch (/ then /api/page?page=1), once, cold
  page 1     /api/page?page=1&size=100, repeated
  middle     the middle page of 100, repeated
  last       the last page of 100, repeated
  act        a pin then an unpin through /api/act, repeated
  baseline   /api/agents (one tiny query): the cost of a request itself

Reports the median and p95 in ms, and each as a ratio to the baseline of the same run
(the machine is shared: absolute figures are noisy, the ratios less so).

    python benchmarks/ui_bench.py [--n 10000] [--repeat 20] [--data-dir DIR]
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
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="reuse a store built by an earlier run (default: a temp dir)")
    args = parser.parse_args()
    data = args.data_dir or Path(tempfile.mkdtemp(prefix="ui-bench-"))
    with MemoryGraph.open(data_dir=data) as g:
        have = g.cypher("MATCH (m:Memory {ns: 'default'}) RETURN count(m) AS n")[0]["n"]
        if have < args.n:
            t0 = time.perf_counter()
            g.remember_many(deposits(args.n)[have:])
            print(f"built {args.n - have} deposits in {time.perf_counter() - t0:.0f} s")
        total = g.cypher("MATCH (m:Memory {ns: 'default'}) RETURN count(m) AS n")[0]["n"]
        server = serve(Timeline(g, ns="default"), by="bench").start()
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
            figures = {
                "baseline": timed(lambda: get("/api/agents"), args.repeat),
                "page 1": timed(lambda: get("/api/page?page=1&size=100"), args.repeat),
                "middle": timed(lambda: get(f"/api/page?page={pages // 2}&size=100"),
                                args.repeat),
                "last": timed(lambda: get(f"/api/page?page={pages}&size=100"), args.repeat),
                "act": timed(lambda: (post("/api/act", {"action": "pin", "id": target,
                                                         "by": "bench"}),
                                      post("/api/act", {"action": "unpin", "id": target,
                                                        "by": "bench"})), args.repeat),
            }
        finally:
            server.stop()
    print(f"{total} memories, {pages} pages of 100; first page cold (/ + /api/page): "
          f"{cold:.0f} ms")
    base_ms = statistics.median(figures["baseline"])
    for name, values in figures.items():
        values = sorted(values)
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        print(f"{name:9s} median {statistics.median(values):7.1f} ms  p95 {p95:7.1f} ms  "
              f"x{statistics.median(values) / base_ms:5.1f} baseline")
    print("(act = a pin and an unpin: two requests)")


if __name__ == "__main__":
    main()

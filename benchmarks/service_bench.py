"""The shared service against the in-process API: throughput and latency, same run.

8 clients x 500 calls each (two remembers, then one recall, repeated), on LoCoMo: client n
replays conversation n (each turn deposited by its speaker, the other speaker as witness)
and asks that conversation's questions. All clients write into one namespace.

  in-process  one MemoryGraph, 8 threads calling it (its calls take turns, as they
              do inside the service)
  service     graphmem serve in a child process, 8 threads each with its own Client

Each side starts from an empty store of its own. Reported: calls per second over the
whole run, and p50/p95 latency of each kind of call (queueing included). Afterwards each
store is checked: every memory a remember returned is there, and there is one Deposit
node per remember call (nothing lost, nothing applied twice).

    python benchmarks/service_bench.py [--clients 8] [--calls 500] [--data ../shared/data/locomo]
        [--order service,in_process]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from graphmem import MemoryGraph
from graphmem.ingestion.benchmarks.locomo import load_locomo
from graphmem.service.client import Client
from graphmem.service.spawn import spawned_service
from shared_data import SHARED_DATA

NS = "bench"


def workload(units, clients: int, calls: int) -> list[list[tuple[str, dict]]]:
    """Per client, the calls to make: ("remember", kwargs) or ("recall", kwargs)."""
    plans = []
    for n in range(clients):
        unit = units[n % len(units)]
        speakers = sorted({t.speaker for t in unit.turns})
        turns, questions = list(unit.turns), list(unit.questions)
        plan, ti, qi = [], 0, 0
        for i in range(calls):
            if i % 3 == 2:
                q = questions[qi % len(questions)]
                qi += 1
                plan.append(("recall", {"agent": f"c{n}:{speakers[0]}", "query": q.text,
                                        "k": 10, "ns": NS}))
            else:
                t = turns[ti % len(turns)]
                ti += 1
                others = [f"c{n}:{s}" for s in speakers if s != t.speaker]
                plan.append(("remember", {"agent": f"c{n}:{t.speaker}", "text": t.text,
                                          "witnesses": others, "at": t.at, "ns": NS}))
        plans.append(plan)
    return plans


def run(plans, call_with, deposits: list) -> dict:
    """Run every plan in its own thread; time each call and the whole run; the results
    of the remembers are appended to ``deposits``."""
    times: dict[str, list[float]] = {"remember": [], "recall": []}
    record = threading.Lock()

    def one_client(n: int) -> None:
        with call_with(n) as call:
            for kind, kwargs in plans[n]:
                start = time.perf_counter()
                result = call(kind, kwargs)
                took = time.perf_counter() - start
                with record:
                    times[kind].append(took)
                    if kind == "remember":
                        deposits.append(result)

    start = time.perf_counter()
    with ThreadPoolExecutor(len(plans)) as pool:
        list(pool.map(one_client, range(len(plans))))
    wall = time.perf_counter() - start
    total = sum(len(v) for v in times.values())
    return {"calls": total, "seconds": round(wall, 2), "calls_per_s": round(total / wall, 2),
            **{f"{kind}_{q}_ms": round(_quantile(v, q) * 1000, 1)
               for kind, v in times.items() for q in ("p50", "p95")},
            "all_p95_ms": round(_quantile(times["remember"] + times["recall"], "p95") * 1000, 1)}


def _quantile(values: list[float], which: str) -> float:
    if len(values) == 1:  # statistics.quantiles needs two: one call is its own p50 and p95
        return values[0]
    return statistics.quantiles(values, n=100)[{"p50": 49, "p95": 94}[which]]


class _InProcess:
    def __init__(self, graph: MemoryGraph) -> None:
        self.graph, self.lock = graph, threading.Lock()

    def __call__(self, n: int):
        outer = self

        class _Ctx:
            def __enter__(self):
                def call(kind, kwargs):
                    with outer.lock:
                        return getattr(outer.graph, kind)(**kwargs)
                return call

            def __exit__(self, *exc):
                return None

        return _Ctx()


class _Remote:
    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token

    def __call__(self, n: int):
        client = Client(self.url, self.token)

        class _Ctx:
            def __enter__(self):
                return lambda kind, kwargs: getattr(client, kind)(**kwargs)

            def __exit__(self, *exc):
                client.close()

        return _Ctx()


def check_store(graph, deposits) -> dict:
    """Nothing lost: every memory a remember returned is stored. Nothing doubled: one
    Deposit node per remember call (a retry that ran twice would leave two)."""
    stored = {r["id"] for r in graph.cypher("MATCH (m:Memory {ns: $ns}) RETURN m.id AS id",
                                            {"ns": NS})}
    deposit_nodes = graph.cypher("MATCH (d:Deposit {ns: $ns}) RETURN count(d) AS n",
                                 {"ns": NS})[0]["n"]
    returned = {m for d in deposits for m in d.memory_ids}
    return {"remember_calls": len(deposits), "deposit_nodes": deposit_nodes,
            "distinct_deposit_ids": len({d.deposit_id for d in deposits}),
            "memories": len(stored), "returned_memories_missing": len(returned - stored)}


def measure_in_process(plans, data_dir: Path) -> tuple[dict, dict]:
    with MemoryGraph.open(data_dir=data_dir) as graph:
        graph.embedder.embed(["warm up"])
        done: list = []
        timing = run(plans, _InProcess(graph), done)
        return timing, check_store(graph, done)


def measure_service(plans, data_dir: Path) -> tuple[dict, dict]:
    with spawned_service(data_dir) as svc:
        done: list = []
        timing = run(plans, _Remote(svc.url, svc.token), done)
        with Client(svc.url, svc.token) as client:
            return timing, check_store(client, done)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--calls", type=int, default=500,
                        help="calls per client, at least 3 (every third is a recall)")
    parser.add_argument("--data", default=SHARED_DATA / "locomo")
    parser.add_argument("--out", default=None, help="Also write the figures as JSON here.")
    parser.add_argument("--order", default="in_process,service",
                        choices=["in_process,service", "service,in_process"],
                        help="Which side runs first (the machine's load drifts: try both).")
    args = parser.parse_args()
    if args.calls < 3:
        parser.error(f"--calls must be at least 3 (every third call is a recall), "
                     f"got {args.calls}")
    plans = workload(load_locomo(args.data, skip_bad=True).units, args.clients, args.calls)
    results = {"clients": args.clients, "calls_per_client": args.calls,
               "order": args.order}
    with tempfile.TemporaryDirectory() as tmp:
        for side in args.order.split(","):
            measure = measure_in_process if side == "in_process" else measure_service
            results[side], results[f"{side}_store"] = measure(plans, Path(tmp) / side)
            print(f"{side}:", json.dumps(results[side]), flush=True)
    results["throughput_ratio_service_over_in_process"] = round(
        results["service"]["calls_per_s"] / results["in_process"]["calls_per_s"], 3)
    print(json.dumps(results, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

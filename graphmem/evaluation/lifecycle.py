"""``graphmem eval lifecycle``: the long-running-agent paper's 500-turn experiment, LLM-free.

A scripted planning dialogue (graphmem.evaluation.lifecycle_script) is fed turn by turn
to three strategies; at every checkpoint each is asked, for every slot stated so far,
one of the slot's questions, and its top-k context is scored against the ground truth:

    window      the last 10 turns, latest first (a sliding context window)
    rag         retrieval without decay or validity: BM25 + dense RRF over every turn
    graphmem    the full system: recall with supersession, ``maintain`` at checkpoints
    graphmem_unordered  the same hits in fused-score order (validity ordering undone), a
                diagnostic of what the supersession ordering adds

Metrics per checkpoint (pure functions below, tested on hand-checked scripts):

    recall            share of questions whose context holds the slot's current value
    contradiction     share of questions whose context holds a superseded value with no
                      item holding the current value at or above it
    current_above     of the (slot, superseded value) pairs whose stale value is in the
                      context, the share where the current value ranks at or above it
    store size, retrieval latency p50/p95 (ms, per question)

For graphmem also the write path's view: the share of memories holding only a stale
value that carry ``valid_until`` (stale_marked) and of memories holding the current
value that wrongly do (current_marked).

Owns: the run, the scoring, results.json / results.md. Imports the public API, the
baselines and the script; the core never imports it.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.api import MemoryGraph
from graphmem.embed import Embedder
from graphmem.write_config import WriteConfig
from graphmem.evaluation.lifecycle_script import AGENTS, Dialogue, generate
from graphmem.evaluation.metrics import percentile
from graphmem.judge import DEFAULT_CONTRADICTION_FLOOR, judge_equivalence
from graphmem.retrieval.baselines import BM25Baseline, DenseBaseline, RRFBaseline
from graphmem.view_search import one_blas_thread

STRATEGIES = ("window", "rag", "graphmem", "graphmem_unordered")
WINDOW = 10
TASK = "plan the product launch: dates, owners, budgets, tools, meetings and staffing"
TARGETS = {"current_above": 0.95, "contradiction": 0.012}


@dataclass(frozen=True)
class LifecycleOptions:
    out: str
    seeds: tuple[int, ...] = (1, 2, 3)
    turns: int = 500
    every: int = 50
    k: int = 5
    maintain: bool = True
    contradiction_floor: float | None = None  # the write path's (WriteConfig); None: default
    #: decay's clock: "deposit" (the dialogue's own times: a replay ages as it happened)
    #: or "recorded" (the wall clock of the writes: a 500-turn replay is minutes old)
    clock: str = "deposit"


# -- scoring (pure) -----------------------------------------------------------------

def values_held(item: set[int], dialogue: Dialogue, slot: str) -> set[str]:
    """The values of ``slot`` the turns behind one context item assert."""
    return {value for i in item if dialogue.turns[i].slot == slot
            and (value := dialogue.turns[i].value) is not None}


def score_context(context: Sequence[set[int]], dialogue: Dialogue, slot: str,
                  current: str, stale: set[str]) -> dict[str, Any]:
    """One question's context (items best first, each the turns it stands for)."""
    held = [values_held(item, dialogue, slot) for item in context]
    first_current = next((r for r, v in enumerate(held) if current in v), None)
    pairs = above = 0
    for value in stale:
        first_stale = next((r for r, v in enumerate(held) if value in v), None)
        if first_stale is None:
            continue
        pairs += 1
        above += first_current is not None and first_current <= first_stale
    contradiction = any(v & stale and current not in v and
                        (first_current is None or first_current > r)
                        for r, v in enumerate(held))
    return {"recall": float(first_current is not None),
            "contradiction": float(contradiction), "pairs": pairs, "above": above}


def summarise(scored: list[dict[str, Any]], latencies: list[float], size: int
              ) -> dict[str, Any]:
    pairs = sum(s["pairs"] for s in scored)
    return {"questions": len(scored),
            "recall": statistics.fmean(s["recall"] for s in scored) if scored else None,
            "contradiction": (statistics.fmean(s["contradiction"] for s in scored)
                              if scored else None),
            "stale_pairs": pairs,
            "current_above": sum(s["above"] for s in scored) / pairs if pairs else None,
            "store_size": size,
            "latency_ms": {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)}}


# -- one seed -------------------------------------------------------------------------

class _Memory:
    """graphmem fed the dialogue: which turns each memory stands for."""
    def __init__(self, graph: Any, ns: str, do_maintain: bool, clock: str = "deposit") -> None:
        self.graph, self.ns, self.do_maintain = graph, ns, do_maintain
        self.turns_of: dict[str, set[int]] = {}
        self.maintenance: list[dict[str, Any]] = []
        graph.set_decay(clock=clock, ns=ns)
        for agent in AGENTS:
            graph.register_agent(agent, ns=ns)
            graph.set_task(agent, TASK, ns=ns)

    def feed(self, turns: Sequence[Any]) -> None:
        deposits = [{"agent": t.agent, "text": t.text, "at": t.at,
                     "witnesses": [a for a in AGENTS if a != t.agent]} for t in turns]
        for turn, result in zip(turns, self.graph.remember_many(deposits, ns=self.ns)):
            for mid in result.memory_ids:
                self.turns_of.setdefault(mid, set()).add(turn.index)
        if self.do_maintain:
            report = self.graph.maintain(ns=self.ns)
            for group in report["consolidated"]:
                self.turns_of[group["fact"]] = set().union(
                    *(self.turns_of.get(m, set()) for m in group["sources"]))
            self.maintenance.append({k: report[k] if isinstance(report[k], int)
                                     else len(report[k]) for k in
                                     ("scored", "below_threshold", "consolidated", "pruned",
                                      "promoted") if k in report})

    def recall(self, query: str, k: int) -> tuple[list[set[int]], list[set[int]]]:
        hits = self.graph.recall("pm", query, k=k, ns=self.ns)
        ordered = [self.turns_of.get(h.memory_id, set()) for h in hits]
        by_score = sorted(hits, key=lambda h: -h.score)  # stable: ties keep their order
        return ordered, [self.turns_of.get(h.memory_id, set()) for h in by_score]

    def size(self) -> int:
        return int(self.graph.stats(ns=self.ns)["entries"])

    def marks(self, dialogue: Dialogue, truth: dict[str, tuple[str, set[str]]]
              ) -> dict[str, float | None]:
        rows = self.graph.cypher("MATCH (m:Memory {ns: $ns}) WHERE coalesce(m.forgotten, "
                                 "false) = false RETURN m.id AS id, m.valid_until AS vu",
                                 {"ns": self.ns})
        stale_marked, current_marked = [], []
        for row in rows:
            for slot, (current, stale) in truth.items():
                held = values_held(self.turns_of.get(row["id"], set()), dialogue, slot)
                if current in held:
                    current_marked.append(row["vu"] is not None)
                elif held & stale:
                    stale_marked.append(row["vu"] is not None)
        return {"stale_marked": statistics.fmean(stale_marked) if stale_marked else None,
                "current_marked": (statistics.fmean(current_marked)
                                   if current_marked else None)}


def _timed(latencies: list[float], fn: Callable[..., Any], *args: Any) -> Any:
    start = time.perf_counter()
    out = fn(*args)
    latencies.append((time.perf_counter() - start) * 1000)
    return out


def run_seed(dialogue: Dialogue, graph: Any, options: LifecycleOptions,
             embedder: Any) -> list[dict[str, Any]]:
    """Feed ``dialogue`` and score every strategy at each checkpoint."""
    memory = _Memory(graph, f"plan{dialogue.seed}", options.maintain, options.clock)
    checkpoints = []
    for n, upto in enumerate(range(options.every, len(dialogue.turns) + 1, options.every)):
        memory.feed(dialogue.turns[upto - options.every:upto])
        truth = dialogue.state(upto)
        docs = [(str(t.index), t.text) for t in dialogue.turns[:upto]]
        rag = RRFBaseline(BM25Baseline(docs), DenseBaseline(docs, embedder))
        window = [{t.index} for t in reversed(dialogue.turns[max(0, upto - WINDOW):upto])]
        scored: dict[str, list] = {s: [] for s in STRATEGIES}
        latency: dict[str, list[float]] = {s: [] for s in STRATEGIES}
        for slot, (current, stale) in sorted(truth.items()):
            asks = dialogue.asks[slot]
            query = asks[n % len(asks)]
            with one_blas_thread():  # as graphmem's view does: BLAS threads starve the model
                found = _timed(latency["rag"], rag.search, query, options.k)
            contexts = {"window": _timed(latency["window"], window.__getitem__,
                                          slice(options.k)),
                        "rag": [{int(i)} for i in found]}
            contexts["graphmem"], contexts["graphmem_unordered"] = _timed(
                latency["graphmem"], memory.recall, query, options.k)
            for name, context in contexts.items():
                scored[name].append(score_context(context, dialogue, slot, current, stale))
        latency["graphmem_unordered"] = latency["graphmem"]
        sizes = {"window": min(upto, WINDOW), "rag": upto, "graphmem": memory.size()}
        sizes["graphmem_unordered"] = sizes["graphmem"]
        checkpoints.append({
            "turn": upto, "slots": len(truth),
            "superseded_values": sum(len(s) for _, s in truth.values()),
            "strategies": {s: summarise(scored[s], latency[s], sizes[s]) for s in STRATEGIES},
            "write_path": memory.marks(dialogue, truth),
            "maintenance": memory.maintenance[-1] if memory.maintenance else None})
    return checkpoints


def judge_coverage(dialogues: Sequence[Dialogue], embed: Callable[[list[str]], Any],
                   contradiction_floor: float | None = None) -> dict[str, dict[str, int]]:
    """Per kind of fact, what the write path's default judge says of each revision
    (update or revert) beside the statement it revises: only a ``contradiction`` can
    lead to supersession, so this bounds what the write path can see."""
    floor = DEFAULT_CONTRADICTION_FLOOR if contradiction_floor is None else contradiction_floor

    pairs: list[tuple[str, str, str]] = []
    for dialogue in dialogues:
        last: dict[str, Any] = {}
        for turn in dialogue.turns:
            before = last.get(turn.slot) if turn.slot else None
            if turn.slot and before is not None and before.value != turn.value:
                pairs.append((dialogue.kinds[turn.slot], turn.text, before.text))
            if turn.slot:
                last[turn.slot] = turn
    out: dict[str, dict[str, int]] = {}
    for lo in range(0, len(pairs), 256):
        chunk = pairs[lo:lo + 256]
        new, old = embed([p[1] for p in chunk]), embed([p[2] for p in chunk])
        for (kind, a, b), va, vb in zip(chunk, new, old):
            verdict = judge_equivalence(a, b, float(va @ vb),
                                        contradiction_floor=floor)
            counts = out.setdefault(kind, {"pairs": 0, "contradiction": 0, "different": 0,
                                           "equivalent": 0})
            counts["pairs"] += 1
            counts[verdict.kind] += 1
    return out


# -- the run ----------------------------------------------------------------------------

def run_lifecycle(options: LifecycleOptions, *, embedder: Any = None,
                  progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Every seed in a fresh embedded store; writes results.json and results.md."""
    embedder = embedder or Embedder()
    write = WriteConfig() if options.contradiction_floor is None else WriteConfig(
        contradiction_floor=options.contradiction_floor)
    per_seed: dict[str, list] = {}
    coverage = judge_coverage([generate(seed, options.turns) for seed in options.seeds],
                              embedder.embed, options.contradiction_floor)
    for seed in options.seeds:
        dialogue = generate(seed, options.turns)
        with tempfile.TemporaryDirectory(prefix="graphmem-lifecycle-") as tmp:
            with MemoryGraph.open(data_dir=Path(tmp) / "data", embedder=embedder,
                                  write_config=write) as graph:
                per_seed[str(seed)] = run_seed(dialogue, graph, options, embedder)
        results = {"benchmark": "lifecycle", "settings": options.__dict__ | {
            "seeds": list(options.seeds), "window": WINDOW, "task": TASK},
            "targets": TARGETS, "seeds": per_seed, "summary": overall(per_seed),
            "judge_coverage": coverage}
        write_reports(Path(options.out), results)  # after each seed: a long run shows progress
        if progress:
            progress(f"seed {seed}: {len(per_seed[str(seed)])} checkpoints")
    return results


def _pooled(checkpoints: list[dict], strategy: str) -> dict[str, float | None]:
    """One seed's figures pooled over its checkpoints (questions weighted equally)."""
    rows = [c["strategies"][strategy] for c in checkpoints]
    questions = sum(r["questions"] for r in rows)
    pairs = sum(r["stale_pairs"] for r in rows)

    def weighted(key: str) -> float | None:
        return (sum(r[key] * r["questions"] for r in rows if r[key] is not None) / questions
                if questions else None)
    return {"recall": weighted("recall"), "contradiction": weighted("contradiction"),
            "current_above": (sum(r["current_above"] * r["stale_pairs"] for r in rows
                                  if r["current_above"] is not None) / pairs
                              if pairs else None),
            "final_store_size": rows[-1]["store_size"] if rows else None,
            "latency_p50_ms": statistics.median(r["latency_ms"]["p50"] for r in rows),
            "latency_p95_ms": max(r["latency_ms"]["p95"] for r in rows)}


WORSE = {"recall": min, "current_above": min, "contradiction": max}


def overall(per_seed: dict[str, list]) -> dict[str, Any]:
    """Per strategy: each metric's mean over seeds and its worst seed."""
    out: dict[str, Any] = {}
    for strategy in STRATEGIES:
        pooled = {seed: _pooled(cps, strategy) for seed, cps in per_seed.items()}
        out[strategy] = {}
        for metric in ("recall", "contradiction", "current_above", "final_store_size",
                       "latency_p50_ms", "latency_p95_ms"):
            values = [float(v) for p in pooled.values() if (v := p[metric]) is not None]
            worst = WORSE.get(metric, max)
            out[strategy][metric] = {"mean": statistics.fmean(values) if values else None,
                                     "worst": worst(values) if values else None}
    return out


def _fmt(value: Any, pct: bool = False) -> str:
    if value is None:
        return "–"
    return f"{100 * value:.1f}%" if pct else (f"{value:.1f}" if isinstance(value, float)
                                              else str(value))


def render_markdown(results: dict[str, Any]) -> str:
    s = results["settings"]
    lines = [f"# Lifecycle: {s['turns']}-turn planning dialogue, seeds {s['seeds']}, "
             f"checkpoint every {s['every']} turns, top-{s['k']} context", "",
             "## Summary (mean over seeds / worst seed)", "",
             "| strategy | recall | contradiction | current ≥ stale | final store | "
             "p50 ms | p95 ms |", "|---|---|---|---|---|---|---|"]
    for name, m in results["summary"].items():
        cells = [f"{_fmt(m[k]['mean'], True)} / {_fmt(m[k]['worst'], True)}"
                 for k in ("recall", "contradiction", "current_above")]
        cells += [_fmt(m[k]["mean"]) for k in ("final_store_size", "latency_p50_ms",
                                               "latency_p95_ms")]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", f"Targets: current ≥ stale ≥ {TARGETS['current_above']:.0%}, "
              f"contradiction < {TARGETS['contradiction']:.1%}.", "",
              "Revisions the write path's judge sees as contradictions (the only ones it "
              "can supersede), by kind of fact: " + "; ".join(
                  f"{kind} {c['contradiction']}/{c['pairs']}"
                  for kind, c in sorted(results.get("judge_coverage", {}).items())), ""]
    for seed, checkpoints in results["seeds"].items():
        lines += [f"## Seed {seed}", "", "| turn | strategy | recall | contradiction | "
                  "current ≥ stale (pairs) | store | p50 ms | p95 ms |",
                  "|---|---|---|---|---|---|---|---|"]
        for c in checkpoints:
            for name, m in c["strategies"].items():
                lines.append(
                    f"| {c['turn']} | {name} | {_fmt(m['recall'], True)} | "
                    f"{_fmt(m['contradiction'], True)} | {_fmt(m['current_above'], True)} "
                    f"({m['stale_pairs']}) | {m['store_size']} | "
                    f"{_fmt(m['latency_ms']['p50'])} | {_fmt(m['latency_ms']['p95'])} |")
        wp = [f"{c['turn']}: {_fmt(c['write_path']['stale_marked'], True)} / "
              f"{_fmt(c['write_path']['current_marked'], True)}" for c in checkpoints]
        lines += ["", "Write path (stale memories marked superseded / current memories "
                  "wrongly marked): " + "; ".join(wp), ""]
    return "\n".join(lines) + "\n"


def write_reports(out: Path, results: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2, default=str))
    (out / "results.md").write_text(render_markdown(results))

"""Ingest every unit once and capture what the selection protocol replays (cv_protocol.py).

Per unit, exactly as `graphmem eval` does it (`graphmem.evaluation.ingest.ingest_unit`:
a namespace of its own, every other agent a witness, two turns of context), then for each
question:

- graphmem's channel rankings (`graphmem.evaluation.captured.capture_question`);
- the ids the live ``recall`` returns under the default config, to check the replay;
- the turns the BM25, dense and RRF baselines return (`evaluation.systems.build_baselines`).

Units go into one store (one namespace each) under a work directory outside the repo; the
capture of each unit is pickled there, so that a rerun (other knobs, other tables)
skips ingestion. The pickles are a cache, never results: delete the directory to redo.
"""

from __future__ import annotations

import os
import pickle
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from graphmem.evaluation.captured import Captured, capture_question
from graphmem.evaluation.ingest import ingest_unit, namespace_for
from graphmem.evaluation.systems import build_baselines
from graphmem.ingestion.benchmarks.model import Unit

DEPTH = 20  # memories (turns for the baselines) recalled per question, as the harness does


@dataclass
class CapturedQuestion:
    """One question of one unit, with everything the protocol scores."""

    dataset: str  # "locomo", "prefeval-explicit", ...
    fold: str  # the held-out group it belongs to
    unit: str
    category: str
    evidence: tuple[str, ...]
    captured: Captured
    live: list[str]  # memory ids of live recall under `live_config`
    baselines: dict[str, list[str]] = field(default_factory=dict)  # name -> turn ids
    live_config: str = ""  # the RecallConfig (JSON) of `live`; "" in early captures


@dataclass
class CapturedUnit:
    """A unit's questions and the map from memories back to turns."""

    unit: str
    dataset: str
    turns_of_memory: dict[str, list[str]]
    questions: list[CapturedQuestion]
    seconds: float = 0.0


def capture_unit(graph, unit: Unit, dataset: str, fold: str, embedder) -> CapturedUnit:
    """Ingest ``unit`` into its own namespace of ``graph`` and capture its questions."""
    from graphmem.retrieval.config import HYBRID

    started = time.perf_counter()
    ns = namespace_for(unit.benchmark, unit.id)
    graph.drop_namespace(ns)  # a unit interrupted earlier starts afresh
    turn_map, _ = ingest_unit(graph, unit, ns)
    graph.warm(ns)
    baselines = build_baselines(unit, turn_map, embedder)
    # every question embedded once, in one batch: recall (the handle's cache) and the
    # baselines (as documents of their cache) reuse the vectors; one at a time, the
    # questions cost more than the ingestion on a loaded machine
    asked = [q.text for q in unit.questions if q.evidence]
    graph.embedder.embed(asked)
    if hasattr(embedder, "add_documents"):
        embedder.add_documents(asked)
    questions = []
    for question in unit.questions:
        if not question.evidence:
            continue
        asker = question.asker or unit.agents[0]
        captured = capture_question(graph, ns, asker, question.text)
        live = [h.memory_id for h in graph.recall(asker, question.text, k=DEPTH, ns=ns,
                                                  config=HYBRID)]
        turns = {b.name: b.retrieve(asker, question.text, DEPTH).turns for b in baselines}
        questions.append(CapturedQuestion(
            dataset=dataset, fold=fold, unit=unit.id, category=str(question.category),
            evidence=tuple(question.evidence), captured=captured, live=live,
            baselines=turns, live_config=HYBRID.model_dump_json()))
    graph.drop_namespace(ns)
    return CapturedUnit(unit=unit.id, dataset=dataset,
                        turns_of_memory={m: list(t) for m, t in
                                         turn_map.turns_of_memory.items()},
                        questions=questions, seconds=time.perf_counter() - started)


def _cache_path(cache: Path, dataset: str, unit: Unit) -> Path:
    return cache / f"{_safe(dataset)}--{_safe(unit.id)}.pkl"


def load_cached(plan: list[tuple[Unit, str, str]], cache: Path) -> list[CapturedUnit]:
    """The units of ``plan`` already captured in ``cache`` (the others are left out)."""
    paths = [_cache_path(cache, dataset, unit) for unit, dataset, _ in plan]
    return [pickle.loads(p.read_bytes()) for p in paths if p.exists()]


def capture_all(graph, plan: list[tuple[Unit, str, str]], cache: Path,
                embedder) -> list[CapturedUnit]:
    """Capture every (unit, dataset, fold) of ``plan``, reading pickles from ``cache``."""
    cache.mkdir(parents=True, exist_ok=True)
    out = []
    for i, (unit, dataset, fold) in enumerate(plan, start=1):
        path = _cache_path(cache, dataset, unit)
        if path.exists():
            out.append(pickle.loads(path.read_bytes()))
            continue
        got = capture_unit(graph, unit, dataset, fold, embedder)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps(got))
        tmp.replace(path)
        out.append(got)
        print(f"[{i}/{len(plan)}] {dataset} {unit.id}: {len(got.questions)} questions, "
              f"{got.seconds:.1f} s", file=sys.stderr, flush=True)
    return out


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text)

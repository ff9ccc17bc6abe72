"""Run one benchmark: per unit a fresh memory, ingestion, frozen memory, questions.

    run_evaluation(options, chat_model=None) -> results dict (also written to options.out)

Protocol per unit (the brain-inspired memory paper's): a fresh store directory and
namespace (``eval-<benchmark>-<unit id>``), removed after the unit, so memory is reset
between units; every turn goes through ``MemoryGraph.remember`` (see `ingest`); then the
memory is frozen — only ``recall`` runs while questions are asked, and graphmem runs no
background process. The baselines are built over the same unit's turns in the same run.

Resumable: each finished unit is appended as one JSON line to ``<out>/units.jsonl``; a
rerun with the same settings skips the units already there (a unit interrupted half way
is redone from scratch). ``<out>/run.json`` keeps the settings; a rerun with different
ones is refused rather than mixed in.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from graphmem.api import MemoryGraph
from graphmem.embed import Embedder
from graphmem.errors import InvalidInput, StoreError
from graphmem.evaluation.answer import answer_and_judge
from graphmem.evaluation.report import UNITS_FILE, read_unit_records, write_reports
from graphmem.evaluation.ingest import TurnMap, ingest_unit, namespace_for
from graphmem.evaluation.metrics import rank_sessions
from graphmem.evaluation.protocols import Protocol, protocol_for
from graphmem.evaluation.systems import (BASELINE_NAMES, DocumentCache, GraphmemSystem,
                                         build_baselines, choose_option)
from graphmem.ingestion.benchmarks import load_benchmark
from graphmem.ingestion.benchmarks.model import LoadReport, Question, Unit
from graphmem.retrieval.config import preset

__all__ = ["EvalOptions", "load_units", "run_evaluation"]

RUN_FILE = "run.json"
#: settings that change the numbers: a rerun into the same directory must keep them
_PINNED = ("benchmark", "data", "seed", "ks", "config", "form", "distractors", "topics",
           "systems", "choice_k", "answer_k", "llm")


@dataclass
class EvalOptions:
    """Everything one ``graphmem eval <benchmark>`` run is told."""

    benchmark: str
    data: str
    out: str
    limit: int | None = None
    every: int = 1
    skip_bad: bool = False
    seed: int | None = None
    ks: tuple[int, ...] | None = None
    config: str | None = None
    llm: str | None = None
    form: str = "explicit"
    distractors: int = 10
    topics: tuple[str, ...] = ()
    systems: tuple[str, ...] = ("graphmem", *BASELINE_NAMES)
    choice_k: int = 5
    answer_k: int = 10
    progress: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def out_path(self) -> Path:
        """The run directory."""
        return Path(self.out)

    def pinned(self) -> dict[str, Any]:
        """The settings a resumed run must share with the first one."""
        values = asdict(self)
        return {key: _plain(values[key]) for key in _PINNED}


def load_units(options: EvalOptions) -> LoadReport:
    """Load the benchmark with the loader's options (errors name file and record)."""
    path = Path(options.data)
    if not path.exists():
        raise InvalidInput(f"{path}: no such file or directory; --data must point at the "
                           f"{options.benchmark} data")
    loader_options: dict[str, Any] = {"skip_bad": options.skip_bad}
    if options.benchmark == "prefeval":
        loader_options.update(form=options.form, n_distractors=options.distractors,
                              seed=options.seed, topics=list(options.topics) or None)
    report = load_benchmark(options.benchmark, path, **loader_options)
    if not report.units:
        skipped = f" ({len(report.skipped)} records skipped as bad)" if report.skipped else ""
        raise InvalidInput(f"{path}: no {options.benchmark} unit to evaluate{skipped}; "
                           "is it the right file, and is it empty?")
    return report


def chosen_units(units: list[Unit], *, every: int = 1, limit: int | None = None) -> list[Unit]:
    """Every ``every``-th unit (a sample spread over the whole benchmark: all of PrefEval's
    topics, all LoCoMo conversations), then the first ``limit`` of those."""
    if every < 1:
        raise InvalidInput(f"--every must be 1 or more, got {every}")
    sample = units[::every]
    return sample[:limit] if limit else sample


def run_evaluation(options: EvalOptions, *, chat_model: Any = None, retry: Any = None
                   ) -> dict[str, Any]:
    """Evaluate, append finished units to ``units.jsonl``, write the reports, return results.

    ``chat_model`` (any langchain-core chat model) answers and judges the questions;
    ``retry`` (a `graphmem.llm.RetryPolicy`) says how its calls are retried.
    """
    protocol = protocol_for(options.benchmark, options.ks)
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    _check_settings(out, options)
    report = load_units(options)
    units = chosen_units(report.units, every=options.every, limit=options.limit)
    done = {row["unit"] for row in read_unit_records(out)}
    todo = [unit for unit in units if unit.id not in done]
    load_info = {"skipped_records": len(report.skipped), "skipped": report.skipped[:50],
                 "notes": dict(report.notes), "units_loaded": len(report.units)}
    (out / "load.json").write_text(json.dumps(load_info, indent=2))
    if todo:
        _evaluate_units(todo, protocol, options, out, chat_model, retry)
    return write_reports(out, protocol, options, load_info,
                         wanted={unit.id for unit in units})


def _evaluate_units(units: list[Unit], protocol: Protocol, options: EvalOptions, out: Path,
                    chat_model: Any, retry: Any) -> None:
    from tqdm import tqdm

    judge_embedder = uncached_embedder()
    config = _recall_config(options.config)
    bar = tqdm(units, desc=f"{options.benchmark} units", unit="unit",
               disable=not options.progress)
    for unit in bar:
        record = evaluate_unit(unit, protocol, options, out, judge_embedder, config, chat_model,
                               retry)
        _append_record(out, record)
    if (out / "stores").is_dir() and not any((out / "stores").iterdir()):
        (out / "stores").rmdir()


def uncached_embedder() -> Any:
    """The embedder of the baselines and of option choice, loaded once per process.

    Documents are embedded once (`DocumentCache`); queries afresh every time, so a
    baseline's latency is not lowered by another system having embedded the same question
    (RRF re-embeds what dense did).
    """
    return DocumentCache(Embedder(cache_size=0))


def evaluate_unit(unit: Unit, protocol: Protocol, options: EvalOptions, out: Path,
                  embedder: Any, config: Any = None, chat_model: Any = None,
                  retry: Any = None) -> dict[str, Any]:
    """Ingest one unit into a fresh store, ask its questions, return its record.

    Without graphmem among the systems nothing is stored: the baselines need only the turns.
    """
    baselines = [s for s in options.systems if s in BASELINE_NAMES]
    if "graphmem" not in options.systems:
        turn_map = turns_without_memory(unit)
        systems: list[Any] = list(build_baselines(unit, turn_map, embedder, baselines))
        questions = [ask_question(unit, q, protocol, options, systems, turn_map, embedder,
                                  chat_model, retry) for q in unit.questions]
        return _unit_record(unit, turn_map, 0, questions)
    ns = namespace_for(unit.benchmark, unit.id)
    store_dir = out / "stores" / ns
    shutil.rmtree(store_dir, ignore_errors=True)  # a unit interrupted earlier starts afresh
    with MemoryGraph.open(data_dir=store_dir) as graph:
        with _bar(len(unit.turns), f"ingest {unit.id}", options.progress) as bar:
            turn_map, empty = ingest_unit(graph, unit, ns, progress=bar.update)
        graph.warm(ns)  # the text index is built before the first question is timed
        systems = [GraphmemSystem(graph, ns, turn_map, config=config),
                   *build_baselines(unit, turn_map, embedder, baselines)]
        before = memory_state(graph, ns)
        questions = [ask_question(unit, q, protocol, options, systems, turn_map, embedder,
                                  chat_model, retry) for q in unit.questions]
        if memory_state(graph, ns) != before:
            raise StoreError(f"unit {unit.id}: memory changed while questions were asked; "
                             "the protocol needs it frozen after ingestion")
    shutil.rmtree(store_dir, ignore_errors=True)
    return _unit_record(unit, turn_map, empty, questions)


def memory_state(graph: Any, ns: str) -> tuple[int, int | None]:
    """(memories, highest write sequence) of a namespace: equal before and after = frozen."""
    row = graph.cypher("MATCH (m:Memory {ns: $ns}) RETURN count(m) AS n, max(m.seq) AS seq",
                       {"ns": ns})[0]
    return int(row["n"]), row["seq"]


def turns_without_memory(unit: Unit) -> TurnMap:
    """A TurnMap of the unit's turns with no memories (for baseline-only runs)."""
    turn_map = TurnMap()
    for turn in unit.turns:
        turn_map.add(turn, ())
    return turn_map


def _unit_record(unit: Unit, turn_map: TurnMap, empty: int, questions: list[dict[str, Any]]
                 ) -> dict[str, Any]:
    return {"unit": unit.id, "benchmark": unit.benchmark, "turns": len(unit.turns),
            "empty_turns": empty, "memories": len(turn_map.turns_of_memory),
            "meta": _plain({k: v for k, v in unit.meta.items() if k != "file"}),
            "questions": questions}


def ask_question(unit: Unit, question: Question, protocol: Protocol, options: EvalOptions,
                 systems: list[Any], turn_map: TurnMap, embedder: Any,
                 chat_model: Any = None, retry: Any = None) -> dict[str, Any]:
    """Ask every system one question; the record holds rankings, not scores."""
    depth = max([*protocol.turn_ks, options.choice_k, options.answer_k, 1])
    asker = protocol.asker(unit, question)
    row: dict[str, Any] = {
        "id": question.id, "category": question.category, "evidence": list(question.evidence),
        "evidence_sessions": list(question.evidence_sessions), "abstention": question.abstention,
        "scored": protocol.scores_question(question), "asker": asker,
        "n_options": len(question.options), "correct_option": question.correct_option,
        "systems": {},
    }
    recalled_texts: list[str] = []
    for system in systems:
        got = system.retrieve(asker, question.text, depth)
        entry: dict[str, Any] = {"turns": got.turns[:depth], "latency_ms": got.latency_ms}
        if protocol.session_ks:
            entry["sessions"] = rank_sessions(got.turns, turn_map.session_of)
        if question.options:
            entry["choice"] = choose_option(question.options, got.texts, embedder,
                                            k=options.choice_k)
        if system.name == "graphmem":
            recalled_texts = got.texts[: options.answer_k]
        row["systems"][system.name] = entry
    if chat_model is not None:
        row["llm"] = answer_and_judge(chat_model, unit, question, recalled_texts, retry=retry)
    return row


def _recall_config(name: str | None) -> Any:
    if name is None:
        return None
    return preset(name)


def _check_settings(out: Path, options: EvalOptions) -> None:
    path = out / RUN_FILE
    pinned = options.pinned()
    if path.exists():
        before = json.loads(path.read_text())
        changed = sorted(k for k in pinned if before.get(k) != pinned[k])
        if changed:
            raise InvalidInput(
                f"{out} holds a run with other settings ({', '.join(changed)} differ: "
                f"{', '.join(f'{k}={before.get(k)!r}' for k in changed)}); resume it with the "
                "same settings or choose another --out")
        return
    path.write_text(json.dumps(pinned, indent=2))


def _append_record(out: Path, record: dict[str, Any]) -> None:
    with (out / UNITS_FILE).open("a") as handle:
        handle.write(json.dumps(record, default=str) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


class _NullBar:
    def update(self, n: int = 1) -> None:
        pass

    def __enter__(self) -> "_NullBar":
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _bar(total: int, desc: str, enabled: bool) -> Any:
    if not enabled:
        return _NullBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="turn", leave=False)


def _plain(value: Any) -> Any:
    """JSON-safe copy: tuples as lists, other odd values as text."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)

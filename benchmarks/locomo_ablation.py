"""LoCoMo ablation: recall_all@10 of the default hybrid recall with each channel removed.

Each conversation is ingested once, exactly as `graphmem eval locomo` does it (a fresh
namespace, both speakers witness every turn, the two turns before a turn as its context),
then every question is asked under every configuration. Prints a markdown table of
overall and per-category recall_all@10 for

    hybrid        the default (`HYBRID`)
    - <channel>   that channel removed (dense, bm25, time, profile, speaker)
    - affiliated  no affiliated expansion
    - classifier  one weight table for every question (`HYBRID.weights`)
    + graph       the entity-graph channel at weight 0.5 for every kind

Latency is not compared here: the configurations after the first reuse its cached query
embeddings. `graphmem eval locomo` measures it. With ``--split`` the table is also
printed for the conversations the defaults were chosen on (conv-26, conv-30) and for the
other six separately.

    python benchmarks/locomo_ablation.py --data ../shared/data/locomo
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from graphmem import MemoryGraph
from graphmem.evaluation.ingest import ingest_unit, namespace_for
from graphmem.evaluation.metrics import mean, rank_turns, recall_all_at_k
from graphmem.ingestion.benchmarks import load_locomo
from graphmem.retrieval.config import HYBRID, RecallConfig
from shared_data import SHARED_DATA

DEV = frozenset({"conv-26", "conv-30"})
K = 10
DEPTH = 20  # memories recalled per question, as the harness does


def configs() -> dict[str, RecallConfig]:
    out = {"hybrid": HYBRID}
    for channel in ("dense", "bm25", "time", "profile", "speaker"):
        out[f"- {channel}"] = HYBRID.model_copy(
            update={"channels": tuple(c for c in HYBRID.channels if c != channel)})
    out["- affiliated"] = HYBRID.model_copy(update={"expand_affiliated": False})
    out["- classifier"] = HYBRID.model_copy(update={"classify": False})
    out["+ graph"] = HYBRID.model_copy(update={"kind_weights": {
        kind: {**weights, "graph": 0.5} for kind, weights in HYBRID.kind_weights.items()}})
    return out


def run(data: Path, work: Path) -> dict[tuple[str, str], list[tuple[str, float]]]:
    """(config, split) -> [(category, recall_all@10)] over every question."""
    report = load_locomo(data, skip_bad=True)
    chosen = configs()
    rows: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    for unit in report.units:
        split = "dev" if unit.id in DEV else "held-out"
        ns = namespace_for("locomo", unit.id)
        started = time.perf_counter()
        with MemoryGraph.open(data_dir=work / unit.id) as graph:
            turn_map, _ = ingest_unit(graph, unit, ns)
            graph.warm(ns)
            for name, config in chosen.items():
                for question in unit.questions:
                    asker = question.asker or unit.agents[0]
                    hits = graph.recall(asker, question.text, k=DEPTH, ns=ns, config=config)
                    turns = rank_turns([h.memory_id for h in hits], turn_map.turns_of_memory)
                    rows[(name, split)].append(
                        (str(question.category), recall_all_at_k(turns, question.evidence, K)))
        print(f"{unit.id}: {len(unit.questions)} questions, {time.perf_counter() - started:.0f} s",
              file=sys.stderr, flush=True)
    return rows


def table(rows: dict[tuple[str, str], list[tuple[str, float]]], splits: list[str]) -> str:
    names = list(configs())
    categories = sorted({c for scored in rows.values() for c, _ in scored}, key=int)
    head = ["config", "questions", "overall", *[f"cat {c}" for c in categories]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in names:
        scored = [r for split in splits for r in rows[(name, split)]]
        by_cat = defaultdict(list)
        for category, score in scored:
            by_cat[category].append(score)
        cells = [name, str(len(scored)), _figure(mean(s for _, s in scored)),
                 *[_figure(mean(by_cat[c])) for c in categories]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _figure(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA / "locomo",
                        help="directory of conv-*.json files or locomo10.json")
    parser.add_argument("--split", action="store_true",
                        help="separate tables for conv-26/30 and the other conversations")
    args = parser.parse_args(argv)
    if not args.data.exists():
        parser.error(f"no LoCoMo data at {args.data}: pass --data DIR")
    with tempfile.TemporaryDirectory(prefix="graphmem-ablation-") as work:
        rows = run(args.data, Path(work))
    print(f"LoCoMo recall_all@{K}, each configuration over the same ingestion\n")
    print(table(rows, ["dev", "held-out"]))
    if args.split:
        for split in ("dev", "held-out"):
            print(f"\n{split} ({'conv-26, conv-30' if split == 'dev' else 'the other conversations'})\n")
            print(table(rows, [split]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

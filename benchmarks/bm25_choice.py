"""Which in-process BM25 should recall use? Ranking quality on LoCoMo, speed, growth.

Compares, over the same terms (graphmem.retrieval.tokenize):
  graphmem   graphmem.retrieval.bm25.BM25Index (incremental add, owner-scoped search)
  rank-bm25  rank_bm25.BM25Okapi (no incremental add: a deposit means a rebuild)
  bm25s      bm25s.BM25, method "lucene" (no incremental add: a deposit means a rebuild)
and, for reference, rank-bm25 on plain lowercase words with no stopwords or stemming
("rank-bm25/words", which gives the issue's 0.49 baseline) and on whitespace tokens
("rank-bm25/split").

LoCoMo: per conversation, each turn is a document ("Speaker: text", plus
"[image: caption]" when the turn shared a photo), each question a query, its evidence dia_ids the relevant
documents; questions whose evidence names no turn of the conversation are skipped.
Reports recall_all@10 (every evidence turn in the top 10) and recall_any@10 over all
questions pooled, query latency p50/p95, and the cost of adding one document. Then one
synthetic 100k-document corpus (Zipf-distributed words) for build/add and query cost,
with and without an owner scope (half the documents, 1% of them).

    python benchmarks/bm25_choice.py [--data ../shared/data/locomo] [--synthetic 100000]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import bm25s
import numpy as np
from rank_bm25 import BM25Okapi

from graphmem.retrieval.bm25 import BM25Index
from graphmem.retrieval.tokenize import tokenize
from shared_data import SHARED_DATA

K = 10
Searcher = Callable[[str, int], list[str]]
DEFAULT_DATA = SHARED_DATA / "locomo"


def load_conversation(path: Path) -> tuple[list[tuple[str, str]], list[dict]]:
    """Turns as (dia_id, "Speaker: text [image: caption]") and the questions, with
    evidence split into a set ("D8:6; D9:17" is two ids) and kept only if it names a turn."""
    data = json.loads(path.read_text())
    turns = []
    for key in sorted((k for k in data if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k[8:])):
        for turn in data[key]:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [image: {turn['blip_caption']}]"
            turns.append((turn["dia_id"], text))
    ids = {dia_id for dia_id, _ in turns}
    questions = []
    for qa in data["qa"]:
        evidence = {e for item in qa.get("evidence", []) for e in re.split(r"[;,\s]+", item) if e}
        evidence &= ids
        if evidence:
            questions.append({"question": qa["question"], "evidence": evidence, "category": qa["category"]})
    return turns, questions


def build_graphmem(turns: list[tuple[str, str]]) -> tuple[Searcher, float]:
    index, start = BM25Index(), time.perf_counter()
    for dia_id, text in turns:
        index.add(dia_id, text)
    per_add = (time.perf_counter() - start) / len(turns)
    return (lambda q, k: [d for d, _ in index.search(q, k)]), per_add


def build_rank_bm25(turns: list[tuple[str, str]], split: Callable[[str], list[str]] = tokenize) -> tuple[Searcher, float]:
    ids = [d for d, _ in turns]
    start = time.perf_counter()
    bm = BM25Okapi([split(t) or [""] for _, t in turns])
    rebuild = time.perf_counter() - start

    def search(q: str, k: int) -> list[str]:
        scores = bm.get_scores(split(q))
        return [ids[i] for i in np.argsort(-scores, kind="stable")[:k]]

    return search, rebuild


def build_bm25s(turns: list[tuple[str, str]]) -> tuple[Searcher, float]:
    ids = [d for d, _ in turns]
    start = time.perf_counter()
    bm = bm25s.BM25(method="lucene")
    bm.index([tokenize(t) or [""] for _, t in turns], show_progress=False)
    rebuild = time.perf_counter() - start
    vocab = bm.vocab_dict

    def search(q: str, k: int) -> list[str]:
        terms = [t for t in tokenize(q) if t in vocab]
        if not terms:
            return []
        docs, _ = bm.retrieve([terms], k=min(k, len(ids)), show_progress=False)
        return [ids[i] for i in docs[0]]

    return search, rebuild


SYSTEMS: dict[str, Callable[[list[tuple[str, str]]], tuple[Searcher, float]]] = {
    "graphmem": build_graphmem,
    "rank-bm25": build_rank_bm25,
    "bm25s": build_bm25s,
    "rank-bm25/words": lambda turns: build_rank_bm25(turns, lambda s: re.findall(r"\w+", s.lower())),
    "rank-bm25/split": lambda turns: build_rank_bm25(turns, lambda s: s.lower().split()),
}


def measure_locomo(paths: list[Path]) -> dict[str, dict]:
    """recall_all/any@10, latency and add cost per system, pooled over conversations."""
    results = {
        name: {"all": 0, "any": 0, "n": 0, "lat": [], "add": [], "rebuild_docs": [], "by_category": {}}
        for name in SYSTEMS
    }
    for path in paths:
        turns, questions = load_conversation(path)
        for name, build in SYSTEMS.items():
            search, add_cost = build(turns)
            row = results[name]
            row["add"].append(add_cost)
            row["rebuild_docs"].append(len(turns))
            for qa in questions:
                start = time.perf_counter()
                top = set(search(qa["question"], K))
                row["lat"].append(time.perf_counter() - start)
                hit_all = qa["evidence"] <= top
                row["all"] += hit_all
                row["any"] += bool(qa["evidence"] & top)
                row["n"] += 1
                category = row["by_category"].setdefault(qa["category"], [0, 0])
                category[0] += hit_all
                category[1] += 1
    return results


def synthetic_corpus(n_docs: int, seed: int = 7) -> tuple[list[tuple[str, str]], list[str]]:
    """Documents of 8-30 words drawn from a Zipf-like vocabulary of 30k words, and queries."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(30_000)]
    weights = [1 / (i + 1) for i in range(len(vocab))]
    words = rng.choices(vocab, weights, k=n_docs * 30)
    docs, pos = [], 0
    for i in range(n_docs):
        length = rng.randint(8, 30)
        docs.append((f"d{i}", " ".join(words[pos : pos + length])))
        pos += length
    # Queries drawn like the text itself, so common words (long postings) come up too.
    queries = [" ".join(rng.choices(vocab, weights, k=5)) for _ in range(200)]
    return docs, queries


def measure_synthetic(n_docs: int) -> dict[str, dict]:
    """Build/add time and query latency at n_docs (rank-bm25 on 20 queries: it is slow)."""
    docs, queries = synthetic_corpus(n_docs)
    out: dict[str, dict] = {}
    start = time.perf_counter()
    index = BM25Index()
    index.add_many(docs)
    out["graphmem"] = {"build_s": time.perf_counter() - start}
    half = {d for d, _ in docs[::2]}
    one_percent = {d for d, _ in docs[::100]}
    for label, scope in (("lat", None), ("lat_half", half), ("lat_1pct", one_percent)):
        lat = []
        for q in queries:
            t0 = time.perf_counter()
            index.search(q, K, allowed=scope)
            lat.append(time.perf_counter() - t0)
        out["graphmem"][label] = lat
    t0 = time.perf_counter()
    for i in range(200):
        index.add(f"extra{i}", docs[i][1])
    out["graphmem"]["add_s"] = (time.perf_counter() - t0) / 200
    for name, build, n_queries in (("bm25s", build_bm25s, 200), ("rank-bm25", build_rank_bm25, 20)):
        search, build_s = build(docs)
        lat = []
        for q in queries[:n_queries]:
            t0 = time.perf_counter()
            search(q, K)
            lat.append(time.perf_counter() - t0)
        out[name] = {"build_s": build_s, "lat": lat}
    return out


def percentile_ms(values: list[float], q: float) -> float:
    return 1000 * float(np.percentile(values, q))


def report(locomo: dict[str, dict], synthetic: dict[str, dict] | None, n_docs: int) -> str:
    lines = [
        f"LoCoMo, {locomo['graphmem']['n']} questions, turns as documents",
        "| system | recall_all@10 | recall_any@10 | query p50 ms | query p95 ms | add one doc ms |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in locomo.items():
        add = statistics.mean(row["add"]) * 1000
        add_label = f"{add:.3f}" if name == "graphmem" else f"{add:.1f} (rebuild of ~{int(statistics.mean(row['rebuild_docs']))})"
        lines.append(
            f"| {name} | {row['all'] / row['n']:.3f} | {row['any'] / row['n']:.3f} | "
            f"{percentile_ms(row['lat'], 50):.2f} | {percentile_ms(row['lat'], 95):.2f} | {add_label} |"
        )
    categories = sorted(next(iter(locomo.values()))["by_category"])
    lines += [
        "",
        "recall_all@10 by LoCoMo category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial)",
        "| system | " + " | ".join(f"{c} (n={locomo['graphmem']['by_category'][c][1]})" for c in categories) + " |",
        "|---|" + "---|" * len(categories),
    ]
    for name, row in locomo.items():
        cells = " | ".join(f"{row['by_category'][c][0] / row['by_category'][c][1]:.3f}" for c in categories)
        lines.append(f"| {name} | {cells} |")
    if synthetic:
        lines += [
            "",
            f"Synthetic corpus, {n_docs:,} documents",
            "| system | build s | query p50 ms | query p95 ms | 50% allowed p50/p95 ms | 1% allowed p50/p95 ms | add one doc ms |",
            "|---|---|---|---|---|---|---|",
        ]
        for name, row in synthetic.items():
            scoped = " | ".join(
                f"{percentile_ms(row[key], 50):.2f} / {percentile_ms(row[key], 95):.2f}" if key in row else "-"
                for key in ("lat_half", "lat_1pct")
            )
            add = f"{row['add_s'] * 1000:.3f}" if "add_s" in row else f"{row['build_s'] * 1000:.0f} (rebuild)"
            lines.append(
                f"| {name} | {row['build_s']:.1f} | {percentile_ms(row['lat'], 50):.2f} | "
                f"{percentile_ms(row['lat'], 95):.2f} | {scoped} | {add} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of LoCoMo conv-*.json")
    parser.add_argument("--synthetic", type=int, default=100_000, help="synthetic corpus size; 0 to skip")
    args = parser.parse_args()
    paths = sorted(args.data.glob("conv-*.json"))
    if not paths:
        raise SystemExit(f"no conv-*.json under {args.data}")
    locomo = measure_locomo(paths)
    synthetic = measure_synthetic(args.synthetic) if args.synthetic else None
    print(report(locomo, synthetic, args.synthetic))


if __name__ == "__main__":
    main()

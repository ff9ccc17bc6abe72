"""A diagnostic for the next multi-hop channel, not a result: among the turns of the
people a LoCoMo multi-hop question names, where do its evidence turns rank by BM25 over
the question's words, by dense similarity, and by BM25 over the question's words
expanded with their nearest words of the conversation's own vocabulary (MiniLM cosine)?

    python benchmarks/multihop_candidates.py [--neighbours 15] [--data DIR]
        [--kinds DIR] [--members FILE] [--context]

"What activities does Melanie partake in?" shares no word with "I'm off to pottery
class", and WordNet puts neither pottery nor camping under activity; the vocabulary a
conversation uses, embedded word by word, may. Nothing is fitted (the neighbour count is
given, and the figures are printed for whichever is asked); the shares are of the
questions' evidence turns in the first 10 and 50, and of the questions whose evidence is
all there, over every conversation of ``--data``.

Two more rankings come from a small language model's output (`turn_kinds.py`, Gemma 3
270M): with ``--kinds``, dense and BM25 over each turn with its labels appended; with
``--members``, BM25 over the question's words and the model's kinds of each (at half a
word's weight, fixed, not fitted).

With ``--context``, each turn is also read with the turn before it in its session (the
question a list's answer often replies to: "What do you do on weekends?" before "We went
camping"): BM25 and dense over the two together, and dense summing the turn's own
similarity and the pair's.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from graphmem.embed import Embedder
from graphmem.ingestion.benchmarks.locomo import load_locomo
from graphmem.retrieval.tokenize import tokenize
from graphmem.retrieval.vocabulary import content_words
from shared_data import SHARED_DATA
from turn_kinds import labelled

DEFAULT_DATA = SHARED_DATA / "locomo"


def unit_vectors(embedder: Embedder, texts: list[str]) -> np.ndarray:
    vectors = embedder.embed(texts)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def read_as(embedder: Embedder, texts: list[str]) -> tuple[np.ndarray, list[set[str]],
                                                           Counter[str]]:
    """Each turn read as ``texts`` says: (unit vectors, terms, document frequencies)."""
    terms = [set(tokenize(text)) for text in texts]
    return unit_vectors(embedder, texts), terms, Counter(t for found in terms for t in found)


def by_similarity(scope: list[int], vectors: np.ndarray, question: np.ndarray) -> list[int]:
    """The turns of ``scope``, nearest ``question`` first."""
    return sorted(scope, key=lambda i: -float(vectors[i] @ question))


def bm25(weights: dict[str, float], scope: list[int], terms: list[set[str]],
         df: Counter[str]) -> list[int]:
    """The turns of ``scope`` holding a weighted term, best first."""
    scores = {i: sum(w * math.log1p((len(terms) - df[t] + .5) / (df[t] + .5))
                     for t, w in weights.items() if t in terms[i]) for i in scope}
    return sorted((i for i, s in scores.items() if s > 0), key=lambda i: -scores[i])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--neighbours", type=int, default=15)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--kinds", type=Path, help="turn_kinds.py's labels (a directory)")
    parser.add_argument("--members", type=Path, help="turn_kinds.py --members's file")
    parser.add_argument("--context", action="store_true",
                        help="also rank each turn read with the turn before it")
    args = parser.parse_args()
    members = json.loads(args.members.read_text()) if args.members else None
    embedder = Embedder()
    shares: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    for unit in load_locomo(args.data, skip_bad=True).units:
        turns = list(unit.turns)
        names = {a.lower() for a in unit.agents}
        vocabulary = sorted({w for t in turns for w in content_words(t.text, names)})
        word_vectors = unit_vectors(embedder, vocabulary)
        turn_vectors, terms, df = read_as(embedder, [t.text for t in turns])
        if args.context:
            paired_vectors, paired_terms, paired_df = read_as(embedder, [
                f"{turns[i - 1].text} {t.text}" if i and turns[i - 1].session == t.session
                else t.text for i, t in enumerate(turns)])
        if args.kinds:
            labels = json.loads((args.kinds / f"{unit.id}.json").read_text())
            labelled_vectors, labelled_terms, labelled_df = read_as(
                embedder, [labelled(t.text, labels.get(t.id)) for t in turns])

        for q in unit.questions:
            if q.meta.get("category_name") != "multi-hop" or not q.evidence:
                continue
            named = [a for a in unit.agents if a.lower() in q.text.lower()]
            scope = [i for i, t in enumerate(turns) if not named or t.speaker in named]
            evidence = {i for i, t in enumerate(turns) if t.id in set(q.evidence)}
            words = content_words(q.text, names)
            expanded: dict[str, float] = {}
            for vector in unit_vectors(embedder, words) if words else []:
                similarity = word_vectors @ vector
                for j in np.argsort(-similarity)[:args.neighbours]:
                    for term in tokenize(vocabulary[j]):
                        expanded[term] = max(expanded.get(term, 0.0), float(similarity[j]))
            question = unit_vectors(embedder, [q.text])[0]
            asked = {t: 1.0 for t in tokenize(" ".join(words))}
            rankings = {
                "bm25": bm25(asked, scope, terms, df),
                "dense": by_similarity(scope, turn_vectors, question),
                "expanded": bm25(expanded, scope, terms, df)}
            if args.context:
                rankings["context bm25"] = bm25(asked, scope, paired_terms, paired_df)
                rankings["context dense"] = by_similarity(scope, paired_vectors, question)
                rankings["dense, turn + context"] = by_similarity(
                    scope, turn_vectors + paired_vectors, question)
            if members is not None:
                with_members = dict(asked)
                for word in words:
                    for kind in members.get(word, []):
                        for term in tokenize(kind):
                            with_members.setdefault(term, 0.5)
                rankings["members"] = bm25(with_members, scope, terms, df)
            if args.kinds:
                rankings["labelled bm25"] = bm25(asked, scope, labelled_terms, labelled_df)
                rankings["labelled dense"] = by_similarity(scope, labelled_vectors, question)
            for depth in (10, 50):
                for name, ranking in rankings.items():
                    top = set(ranking[:depth])
                    shares[(name, depth, "evidence")].append(len(evidence & top) / len(evidence))
                    shares[(name, depth, "all")].append(float(evidence <= top))
                for first, name in (("dense", "bm25"), ("dense", "expanded"),
                                    ("dense", "members"),
                                    ("context dense", "context bm25"),
                                    ("dense, turn + context", "expanded"),
                                    ("labelled dense", "labelled bm25")):
                    if first in rankings and name in rankings:
                        top = set(rankings[first][:depth]) | set(rankings[name][:depth])
                        shares[(f"{first} + {name}", depth, "all")].append(
                            float(evidence <= top))
    count = len(shares[("bm25", 10, "all")])
    print(f"{count} multi-hop questions; {args.neighbours} neighbours a word\n")
    print("| ranking (the named people's turns) | evidence @10 | all @10 | evidence @50 | all @50 |")
    print("|---|---:|---:|---:|---:|")
    for name in ("bm25", "dense", "expanded", "members", "labelled bm25", "labelled dense",
                 "dense + bm25", "dense + expanded", "dense + members",
                 "labelled dense + labelled bm25", "context bm25", "context dense",
                 "dense, turn + context", "context dense + context bm25",
                 "dense, turn + context + expanded"):
        if not any(key[0] == name for key in shares):
            continue
        cells = [shares.get((name, d, kind)) for d in (10, 50) for kind in ("evidence", "all")]
        print(f"| {name} | " + " | ".join(f"{statistics.mean(c):.3f}" if c else "" for c in cells)
              + " |")


if __name__ == "__main__":
    main()

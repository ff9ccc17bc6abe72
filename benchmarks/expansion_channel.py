"""An expansion channel open to every memory, simulated in the captures: does it earn a
place in the fusion?

LoCoMo's list questions ("What activities does Melanie partake in?") share few words with
their evidence ("I'm off to pottery class"). `multihop_candidates.py` found that BM25 over
the question's words expanded by their nearest words of the conversation's own vocabulary
finds more of that evidence than BM25 or dense, but it ranked only the turns of the
people the question names, and every channel so restricted costs LoCoMo's adversarial
questions (they name the wrong person). The two channels simulated here rank every
memory the asker owns:

    expand    BM25 over each memory's own wordings (the ``words`` index) by the question's
              content words (longer than 3 letters, no stopword, no agent's name), each
              weighted 1, and their `NEIGHBOURS` nearest words of the namespace's
              vocabulary (the content words its memories use, embedded word by word with
              the project's Embedder), each weighted by its cosine to the question word
    feedback  pseudo-relevance feedback from the shipped fusion: its first `SEEDS`
              memories (replayed under the shipped config) lend the `TERMS` words they
              share with other memories but the question lacks (the rarest, summed over
              the seeds, as `graphmem.retrieval.feedback.expansion_terms` chooses them),
              weighted `FEEDBACK_WEIGHT`, to the question's content words; BM25 over the
              wordings again
    expand_named  the same with every word of the question weighted as the ``words``
              channel weighs it (the agents' names included; only the content words are
              expanded): a name then favours its agent's memories without restricting to
              them (added after the first run's channels alone, below)
    asked     (a diagnostic, never judged in the fusion) the question's content words
              alone, as `expand` has them before expansion

Every knob above was fixed before any figure was seen (15 neighbours as the lead used);
nothing is chosen on these captures but the fusion's weights, nested.

The captures keep no memory text, so the wordings are made again: each turn atomised
as ingestion does (`graphmem.atomise.atomise` over `ingest.text_pieces`), its atoms given
in order to the memories it created (`CapturedUnit.turns_of_memory` is in creation
order, which is also view-row order), an atom merged into an earlier memory added to that
memory's wordings. A memory ranked here that the capture does not know gets its view row
(its creation order), its affiliated neighbours (the other memories of its turns, as a
deposit's atoms are linked) and a cosine to the question (its first wording against the
question without the agents' names, as `turn_vectors.py` embeds it). The script prints
how well that holds: the share of captured memory vectors the remade first wording
reproduces, and the mean gap between captured and remade cosines.

The rankings are added to copies of the captures (the originals are not touched), every
channel is scored alone, and the fitted fusion is judged with them by the rule, nested,
against the shipped procedure (`turn_vectors.judge`, `cv_fitted.py`), RRF k 10:

    python benchmarks/expansion_channel.py --captures /tmp/pecv/captured-d10 \\
        --also /tmp/pecv300/captured-d300 --work /tmp/expand [--out /tmp/expand.json]

(``--also`` may be given twice: the 96 items of ``/tmp/pecv300`` and ``/tmp/pecv300x``;
``--variants`` picks some of `VARIANTS`). On 2 loaded cores: 931 s with the 60 items at 300
distractors and every variant (175 s of it simulating), 1,348 s with the 96 and two
variants. The PrefEval items of ``cv_protocol.py --other-half`` in the captures are
simulated too (with the LoCoMo captures linked beside them, that is the fresh-items test:
`docs/evaluation-protocols.md`, sixteenth session).
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from cv_protocol import add_capture_arguments, also_units
from multihop_candidates import content_words, unit_vectors
from turn_vectors import (DEPTH, EMBEDDED_KEPT, alone, judge, memories_by_turn,
                          units_to_copy)
from graphmem.atomise import atomise
from graphmem.embed import Embedder
from graphmem.evaluation.captured import replay
from graphmem.evaluation.ingest import text_pieces
from graphmem.retrieval.bm25 import BM25Index
from graphmem.retrieval.config import HYBRID
from graphmem.retrieval.query import without_names
from graphmem.retrieval.tokenize import tokenize

SIMULATED = ("expand", "expand_named", "feedback", "asked")
NEIGHBOURS = 15  # vocabulary words per question word (the lead's; 5 and 30 gave about the same)
SEEDS = 5  # the shipped fusion's first memories that lend words
TERMS = 10  # words they lend
FEEDBACK_WEIGHT = 0.5  # each lent word's weight (the question's own weigh 1)


def _only(*kept: str) -> tuple[str, ...]:
    """The simulated channels a variant that adds ``kept`` leaves out."""
    return tuple(c for c in SIMULATED if c not in kept)


VARIANTS = {"shipped + expand": _only("expand"),
            "shipped + expand (names kept)": _only("expand_named"),
            "shipped + feedback": _only("feedback"),
            "shipped + expand + feedback": _only("expand", "feedback")}


def memory_wordings(unit, turns_of_memory: dict[str, list[str]]) -> tuple[dict, int]:
    """Memory id -> its wordings (the first its own text), remade from the unit's turns;
    and how many turns did not align (their memories left over take the whole turn)."""
    of_turn = memories_by_turn(turns_of_memory)
    wordings: dict[str, list[str]] = {}
    misaligned = 0
    for turn in unit.turns:
        if not turn.text.strip():
            continue
        atoms = [a for piece in text_pieces(turn.text) for a in atomise(piece, speaker=turn.speaker)]
        memories = of_turn.get(turn.id, [])
        for memory in (m for m in memories if m in wordings):  # merged into an earlier one
            if atoms:
                own = set(tokenize(wordings[memory][0]))
                best = max(range(len(atoms)), key=lambda i: _overlap(own, atoms[i]))
                if atoms[best] not in wordings[memory]:
                    wordings[memory].append(atoms[best])
                del atoms[best]
        new = [m for m in memories if m not in wordings]
        if len(atoms) > len(new):  # equal atoms of one deposit make one memory
            atoms = list(dict.fromkeys(atoms))
        misaligned += len(atoms) != len(new)
        for i, memory in enumerate(new):
            wordings[memory] = [atoms[i] if i < len(atoms) else turn.text]
    return wordings, misaligned


def _overlap(terms: set[str], text: str) -> float:
    other = set(tokenize(text))
    return len(terms & other) / max(1, len(terms | other))


class UnitIndex:
    """A unit's memories as the words index holds them, and its vocabulary embedded."""

    def __init__(self, wordings: dict[str, list[str]], order: list[str], names: set[str],
                 embedder: Embedder) -> None:
        self.index = BM25Index()
        for row, memory in enumerate(order):
            if memory in wordings:
                self.index.add(memory, " ".join(wordings[memory]), row)
        self.names = names
        self.terms_of = {m: set(tokenize(" ".join(w))) for m, w in wordings.items()}
        self.vocabulary = sorted({w for texts in wordings.values() for t in texts
                                  for w in content_words(t, names)})
        self.vectors = unit_vectors(embedder, self.vocabulary)
        self.embedder = embedder

    def asked(self, text: str) -> dict[str, float]:
        """The question's content words' terms, weight 1."""
        return {t: 1.0 for w in content_words(text, self.names) for t in tokenize(w)}

    def expanded(self, text: str, keep_names: bool = False) -> dict[str, float]:
        """`asked` (``keep_names``: every term of ``text`` as often as it occurs, as
        `BM25Index.search` weighs a text), with each content word's nearest vocabulary
        words weighted by cosine."""
        weights: dict[str, float] = {}
        words = content_words(text, self.names)
        if words and self.vocabulary:
            for vector in unit_vectors(self.embedder, words):
                cosine = self.vectors @ vector
                for j in np.argsort(-cosine, kind="stable")[:NEIGHBOURS]:
                    for term in tokenize(self.vocabulary[j]):
                        weights[term] = max(weights.get(term, 0.0), float(cosine[j]))
        if not keep_names:
            return {**weights, **self.asked(text)}
        counts: dict[str, float] = defaultdict(float)
        for term in tokenize(text):
            counts[term] += 1.0
        return {**weights, **counts}

    def fed_back(self, text: str, seeds: list[str]) -> dict[str, float]:
        """`asked`, with the words the seeds share with other memories and it lacks."""
        asked = self.asked(text)
        names = {t for n in self.names for t in tokenize(n)}
        score: dict[str, float] = defaultdict(float)
        for memory in seeds:
            for term in self.terms_of.get(memory, ()):
                if term not in asked and term not in names \
                        and self.index.document_frequency(term) >= 2:
                    score[term] += self.index.idf(term)
        lent = sorted(score, key=lambda t: (-score[t], t))[:TERMS]
        return {**{t: FEEDBACK_WEIGHT for t in lent}, **asked}

    def search(self, weights: dict[str, float]) -> list[str]:
        return [m for m, _ in self.index.search_terms(weights, DEPTH)] if weights else []


def simulate(source: Path, target: Path, distractors: int, embedder: Embedder,
             checks: dict[str, list[float]]) -> int:
    """Copy the captures of ``source`` into ``target`` with the two simulated rankings;
    the remade wordings' and cosines' agreement with the capture goes into ``checks``."""
    done = 0
    for unit, _, path in units_to_copy(source, target, distractors):
        started = time.perf_counter()
        captured_unit = pickle.loads(path.read_bytes())
        order = list(captured_unit.turns_of_memory)
        wordings, misaligned = memory_wordings(unit, captured_unit.turns_of_memory)
        checks["misaligned turns"].append(misaligned)
        names = {a.lower() for a in unit.agents}
        index = UnitIndex(wordings, order, names, embedder)
        row = {m: i for i, m in enumerate(order)}  # creation order is view-row order
        siblings = _siblings(captured_unit.turns_of_memory, row)
        agents = {a: a for a in unit.agents}
        for question in captured_unit.questions:
            captured = question.captured
            seeds = replay(captured, HYBRID, k=SEEDS)
            captured.rankings["expand"] = index.search(index.expanded(captured.text))
            captured.rankings["expand_named"] = index.search(
                index.expanded(captured.text, keep_names=True))
            captured.rankings["feedback"] = index.search(index.fed_back(captured.text, seeds))
            captured.rankings["asked"] = index.search(index.asked(captured.text))
            asked = without_names(captured.text, agents) or captured.text
            complete(captured, [m for c in SIMULATED for m in captured.rankings[c]],
                     row, wordings, siblings, embedder.embed([asked])[0], embedder, checks)
        (target / path.name).write_bytes(pickle.dumps(captured_unit))
        done += 1
        print(f"{path.name}: {len(order)} memories, {len(index.vocabulary)} words, "
              f"{misaligned} turns misaligned, {time.perf_counter() - started:.1f} s",
              file=sys.stderr, flush=True)
    return done


def _siblings(turns_of_memory: dict[str, list[str]],
              row: dict[str, int]) -> dict[str, list[str]]:
    """Memory id -> the other memories of its turns (its affiliated neighbours), in row
    order."""
    of_turn = memories_by_turn(turns_of_memory)
    return {m: sorted({x for t in turns for x in of_turn[t] if x != m}, key=row.__getitem__)
            for m, turns in turns_of_memory.items()}


def complete(captured, ranked: list[str], row: dict[str, int], wordings, siblings,
             question: np.ndarray, embedder: Embedder, checks) -> None:
    """Give the memories of ``ranked`` the capture does not know (and their affiliated
    neighbours) what the replay reads of them: row (``row``: each memory's view row),
    cosine and neighbours."""
    known = [m for m in captured.rows if m in wordings][:20]
    if known:  # how well the remade wordings and cosines hold, on memories the capture has
        remade = unit_vectors(embedder, [wordings[m][0] for m in known])
        kept = np.array([captured.vectors[m] for m in known], dtype=np.float32)
        kept /= np.linalg.norm(kept, axis=1, keepdims=True)
        checks["same vector"].extend((np.sum(remade * kept, axis=1) > 0.99).tolist())
        checks["cosine gap"].extend(np.abs(remade @ question
                                           - np.array([captured.sims[m] for m in known])).tolist())
        checks["rows in creation order"].extend(captured.rows[m] == row[m] for m in known)
    new = [m for m in dict.fromkeys(ranked) if m not in captured.rows]
    for memory in new:
        captured.affiliated[memory] = siblings.get(memory, [])
        if not captured.affiliated[memory]:
            del captured.affiliated[memory]
    needed = list(dict.fromkeys([*new, *(x for m in new for x in siblings.get(m, []))]))
    needed = [m for m in needed if m not in captured.rows]
    if not needed:
        return
    cosines = unit_vectors(embedder, [wordings.get(m, ["?"])[0] for m in needed]) @ question
    for memory, cosine in zip(needed, cosines):
        captured.rows[memory] = row[memory]
        captured.sims[memory] = float(cosine)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_capture_arguments(parser)
    parser.add_argument("--work", type=Path, required=True, help="where the copies go")
    parser.add_argument("--rrf-k", type=int, default=10)
    parser.add_argument("--alone-only", action="store_true",
                        help="score the channels alone, do not judge the fusion")
    parser.add_argument("--variants", help="comma-separated names of VARIANTS (default all)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    started = time.perf_counter()
    embedder = Embedder(cache_size=EMBEDDED_KEPT)
    checks: dict[str, list[float]] = defaultdict(list)
    copies = args.work / "captured-d10"
    print(f"{simulate(args.captures, copies, 10, embedder, checks)} units simulated",
          file=sys.stderr)
    units = [pickle.loads(p.read_bytes()) for p in sorted(copies.glob("*.pkl"))]
    more = []
    for i, also in enumerate(args.also):
        more.append(args.work / f"captured-d300-{i}")
        print(f"{simulate(also, more[-1], 300, embedder, checks)} units simulated at 300 "
              "distractors", file=sys.stderr)
    units += also_units(more, 300)
    print(f"simulated in {time.perf_counter() - started:.0f} s; " + "; ".join(
        f"{name} {statistics.mean(values):.3f} (mean of {len(values)})"
        for name, values in checks.items() if values))
    print(alone(units, ("bm25", "words", "dense", "speaker", "said", "hop", *SIMULATED)) + "\n")
    if args.alone_only:
        return 0
    chosen = args.variants.split(",") if args.variants else list(VARIANTS)
    results = judge(units, (args.rrf_k,), simulated=SIMULATED,
                    variants={name: VARIANTS[name] for name in chosen})
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
    print(f"done in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

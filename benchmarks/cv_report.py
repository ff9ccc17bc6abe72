"""Scoring, selection and tables of the cross-validated protocol (see cv_protocol.py).

    run_protocol(units) -> results (JSON-ready) and prints markdown tables

Steps: score every knob's options by replay (`graphmem.evaluation.captured.replay`); the
verdict of every knob against the shipped default (`graphmem.evaluation.crossval`); the
final setting (knobs that fail removed, the others at the value chosen on every fold);
and the nested estimate of the whole procedure: for each held-out fold the verdicts and
values are decided on the other folds alone (with their own inner folds), so the held-out
fold never takes part in any choice.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from graphmem.evaluation.captured import effective_weights, replay, replay_weighted
from graphmem.evaluation.crossval import (choose, cross_validate, fold_table, inner_verdict,
                                          verdict)
from graphmem.evaluation.knobs import Setting, apply, knobs_of
from graphmem.evaluation.metrics import rank_turns, recall_all_at_k, recall_any_at_k
from graphmem.retrieval.config import HYBRID

DEPTH = 20
MAX_ROUNDS = 4
BASELINES = ("bm25", "dense", "rrf")
CATEGORY_NAMES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop",
                  "5": "adversarial"}


def metric_name(dataset: str) -> str:
    return "recall_all@10" if dataset == "locomo" else "recall_any@5"


def score_turns(dataset: str, turns: list[str], evidence) -> float:
    if dataset == "locomo":
        return recall_all_at_k(turns, evidence, 10)
    return recall_any_at_k(turns, evidence, 5)


class Scorer:
    """Per-question scores of a setting (replayed) or a baseline (captured), cached."""

    def __init__(self, units) -> None:
        self.questions = [(u, q) for u in units for q in u.questions]
        self.datasets = np.array([q.dataset for _, q in self.questions])
        self.folds = np.array([q.fold for _, q in self.questions])
        self.categories = np.array([q.category for _, q in self.questions])
        self._cache: dict[str, np.ndarray] = {}
        self._memo: dict[tuple, float] = {}

    def setting(self, setting: Setting) -> np.ndarray:
        key = setting.key()
        if key not in self._cache:
            self._cache[key] = np.array([self._score(i, setting.config, setting.cues)
                                         for i in range(len(self.questions))])
        return self._cache[key]

    def _score(self, i: int, config, cues) -> float:
        # a knob of one question kind changes nothing for the others: a question's score
        # is memoised on what its ranking depends on (its weights and the fusion settings)
        unit, q = self.questions[i]
        weights = effective_weights(q.captured, config, cues)
        fusion = config.model_dump_json(include={"channels", "rrf_k", "depth", "channel_depth",
                                                 "expand_affiliated", "affiliated_weight",
                                                 "affiliated_cap"})
        key = (i, tuple(sorted(weights.items())), fusion)
        if key not in self._memo:
            ids = replay_weighted(q.captured, weights, config, k=DEPTH)
            self._memo[key] = score_turns(q.dataset, rank_turns(ids, unit.turns_of_memory),
                                          q.evidence)
        return self._memo[key]

    def baseline(self, name: str) -> np.ndarray:
        return np.array([score_turns(q.dataset, q.baselines[name], q.evidence)
                         for _, q in self.questions])

    def replay_mismatches(self) -> int:
        """Questions where the replayed default differs from the live recall."""
        return sum(replay(q.captured, HYBRID, k=DEPTH) != q.live for _, q in self.questions)


def knob_options(scorer: Scorer, base: Setting, knob) -> dict[str, np.ndarray]:
    options = {"off": scorer.setting(apply(base, [knob.off]))}
    for patch in knob.options:
        options[patch.label()] = scorer.setting(apply(base, [patch]))
    return options


def judge_knobs(scorer: Scorer, base: Setting, within: np.ndarray | None = None) -> list[dict]:
    """Every knob of ``base`` judged alone (the others as in ``base``) on the folds in
    ``within``: its verdict, and the value chosen on all of them if it is kept."""
    rows = []
    within = np.ones(len(scorer.datasets), bool) if within is None else within
    for knob in knobs_of(base):
        options = knob_options(scorer, base, knob)
        selected = cross_validate(options, scorer.datasets, scorer.folds, within)
        result = verdict(selected, fold_table(options["off"], scorer.datasets, scorer.folds,
                                              within))
        chosen = choose(options, within, scorer.datasets) if result.keep else "off"
        patch = next((p for p in knob.options if p.label() == chosen), knob.off)
        rows.append({"name": knob.name, "current": knob.current, "chosen": chosen,
                     "keep": result.keep, "gain": result.mean_gain,
                     "worst": result.worst_change, "reason": result.reason,
                     "per_fold_choice": selected.chosen, "patch": patch})
    return rows


def select(scorer: Scorer, base: Setting, within: np.ndarray | None = None,
           rounds: int = MAX_ROUNDS) -> tuple[Setting, list[list[dict]]]:
    """The protocol: judge every knob alone, apply every verdict (removals and chosen
    values) at once, and judge again from there, until nothing changes (at most
    ``rounds`` rounds: a knob removed in one round may be earned back in the next)."""
    setting, history = base, []
    for _ in range(rounds):
        rows = judge_knobs(scorer, setting, within)
        history.append(rows)
        new = apply(setting, [r["patch"] for r in rows])
        if new.key() == setting.key():
            break
        setting = new
    return setting, history


def changes(before: Setting, after: Setting) -> list[str]:
    """What differs between two settings, knob by knob."""
    now = {k.name: k.current for k in knobs_of(before)}
    then = {k.name: k.current for k in knobs_of(after)}
    return [f"{name}: {now.get(name, 'absent')} -> {then.get(name, 'absent')}"
            for name in sorted(set(now) | set(then)) if now.get(name) != then.get(name)]


def nested_scores(scorer: Scorer, base: Setting) -> tuple[np.ndarray, dict]:
    """Per question, its score under the setting the whole procedure selects without its
    fold (with inner folds of its own); and, per fold, what that selection changed."""
    out = np.zeros(len(scorer.datasets))
    decisions = {}
    for fold in np.unique(scorer.folds):
        chosen, history = select(scorer, base, scorer.folds != fold)
        held = scorer.folds == fold
        out[held] = scorer.setting(chosen)[held]
        decisions[str(fold)] = {"rounds": len(history), "changes": changes(base, chosen)}
        print(f"nested: {fold} done ({len(history)} rounds)", file=sys.stderr, flush=True)
    return out, decisions


def run_protocol(units) -> dict:
    started = time.perf_counter()
    scorer = Scorer(units)
    mismatches = scorer.replay_mismatches()
    print(f"replay vs live recall (default config): {mismatches} of "
          f"{len(scorer.questions)} questions differ", file=sys.stderr)
    base = Setting(HYBRID)
    final, history = select(scorer, base)
    print(f"selected on all folds in {len(history)} rounds, "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    nested, decisions = nested_scores(scorer, base)
    print(f"nested estimate in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    systems = {"graphmem shipped": scorer.setting(base),
               "graphmem protocol (nested)": nested,
               "graphmem final (all folds)": scorer.setting(final),
               **{name: scorer.baseline(name) for name in BASELINES}}
    from cv_tables import print_tables

    tables = print_tables(scorer, history[0], systems, decisions, changes(base, final))
    return {"replay_mismatches": mismatches, "questions": len(scorer.questions),
            "rounds": [[_plain_row(r) for r in rows] for rows in history],
            "final_changes": changes(base, final),
            "final_config": final.config.model_dump(mode="json"),
            "final_cues": sorted(final.cues), "nested_decisions": decisions, **tables}


def _plain_row(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "patch"}

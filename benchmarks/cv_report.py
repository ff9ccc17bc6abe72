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

from graphmem.evaluation.captured import replay, replay_weighted, route_features_of
from graphmem.evaluation.crossval import (choose, cross_validate, fold_table, objective,
                                          verdict)
from graphmem.evaluation.fusion_fit import fit_config
from graphmem.evaluation.knobs import CUE_FAMILIES, RRF_K_GRID, Setting, apply, knobs_of
from graphmem.evaluation.metrics import rank_turns, recall_all_at_k, recall_any_at_k
from graphmem.retrieval.classify import QueryKind
from graphmem.retrieval.config import HYBRID, RecallConfig, weights_for
from graphmem.retrieval.route import RouteGate

DEPTH = 20
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
        self._classes: dict[tuple, object] = {}
        self.fits: dict[tuple, RecallConfig] = {}  # fitted configs, shared by variants

    def setting(self, setting: Setting) -> np.ndarray:
        key = setting.key()
        if key not in self._cache:
            self._cache[key] = self._scores(setting.config, setting.cues)
        return self._cache[key]

    def _scores(self, config, cues) -> np.ndarray:
        # a knob of one question kind changes nothing for the others: a question's score
        # is memoised on what its ranking depends on (its weights and the fusion settings),
        # and the weights on its class (the same for every question of one class)
        fusion = config.model_dump_json(include={"channels", "rrf_k", "depth", "channel_depth",
                                                 "expand_affiliated", "affiliated_weight",
                                                 "affiliated_cap"})
        # (with a route gate, on the class and whether the gate fires)
        by_class: dict = {}
        out = np.empty(len(self.questions))
        for i, (unit, q) in enumerate(self.questions):
            query_class = self._class(i, cues) if config.classify else None
            features = route_features_of(q.captured, config, query_class)
            fired = features is not None and config.route is not None and config.route.fires(features)
            if (query_class, fired) not in by_class:
                weights = weights_for(config, query_class, features)
                by_class[query_class, fired] = (weights, tuple(sorted(weights.items())))
            weights, signature = by_class[query_class, fired]
            key = (i, signature, fusion)
            if key not in self._memo:
                ids = replay_weighted(q.captured, weights, config, k=DEPTH)
                self._memo[key] = score_turns(q.dataset, rank_turns(ids, unit.turns_of_memory),
                                              q.evidence)
            out[i] = self._memo[key]
        return out

    def _class(self, i: int, cues):
        key = (i, cues)
        if key not in self._classes:
            self._classes[key] = self.questions[i][1].captured.query_class(cues)
        return self._classes[key]

    def baseline(self, name: str) -> np.ndarray:
        return np.array([score_turns(q.dataset, q.baselines[name], q.evidence)
                         for _, q in self.questions])

    def replay_mismatches(self) -> list[str]:
        """Questions (unit and index) where the replay differs from the live recall it was
        captured with."""
        units = {id(unit): unit for unit, _ in self.questions}.values()
        return [f"{unit.unit} question {j}" for unit in units
                for j, q in enumerate(unit.questions)
                if replay(q.captured, _live_config(q), k=DEPTH) != q.live]

    def check_replay(self, tolerate: bool = False) -> int:
        """The number of questions whose replay differs from live recall; with any, and
        unless ``tolerate``, stop: every figure of the run would be of a recall that is
        not graphmem's."""
        mismatches = self.replay_mismatches()
        print(f"replay vs live recall (default config): {len(mismatches)} of "
              f"{len(self.questions)} questions differ", file=sys.stderr)
        if mismatches and not tolerate:
            shown = ", ".join(mismatches[:5]) + (", ..." if len(mismatches) > 5 else "")
            raise SystemExit(
                f"the replay differs from live recall on {len(mismatches)} questions "
                f"({shown}): either a step of recall changed and "
                "graphmem/evaluation/captured.py does not replay it yet (mend the replay), "
                "or the captures were made by older code (capture again). To measure old "
                "captures anyway, pass --tolerate-replay-mismatch.")
        return len(mismatches)


def _live_config(question) -> RecallConfig:
    if getattr(question, "live_config", ""):
        return RecallConfig.model_validate_json(question.live_config)
    # captured before affiliated expansion was turned off by default
    return HYBRID.model_copy(update={"expand_affiliated": True})


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
    single = knobs_of(base, single_cues=True)
    every = ([k for k in single if k.family == "cue"] + knobs_of(base)[:len(CUE_FAMILIES)]
             + [k for k in single if k.family != "cue"])
    for knob in every:
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


def _rule(scorer: Scorer, reference: np.ndarray, options: dict[str, np.ndarray],
          within: np.ndarray):
    """The rule, with ``reference`` the setting to beat (listed first: it wins ties)."""
    options = {"reference": reference, **options}
    selected = cross_validate(options, scorer.datasets, scorer.folds, within)
    result = verdict(selected, fold_table(reference, scorer.datasets, scorer.folds, within))
    return result, choose(options, within, scorer.datasets)


def fine_knobs(setting: Setting) -> list:
    """The knobs the configuration is made of: cue families, per-kind weights, affiliated
    expansion, secondary kinds. A whole channel or the whole classifier is the sum of
    these; judged as one block under the rule, a channel that helps one benchmark and
    hurts another (BM25: LoCoMo against PrefEval) would be removed for both, when its
    per-kind weights can settle the conflict. Blocks are reported, not eliminated."""
    return [k for k in knobs_of(setting)
            if not (k.name.startswith("channel ") or k.name == "classifier")]


def eliminate(scorer: Scorer, setting: Setting, within: np.ndarray) -> tuple[Setting, list]:
    """Backward elimination: while some knob that is on fails the rule against its own
    removal, remove the one whose keeping gains least, and judge the rest again (one at
    a time: two cues that stand in for each other must not both go at once)."""
    removed = []
    while True:
        now = scorer.setting(setting)
        failing = []
        for knob in fine_knobs(setting):
            without = apply(setting, [knob.off])
            if without.key() == setting.key():
                continue  # already off
            result, _ = _rule(scorer, scorer.setting(without), {"on": now}, within)
            if not result.keep:
                failing.append((result.mean_gain, knob.name, without))
        if not failing:
            return setting, removed
        gain, name, setting = min(failing, key=lambda f: (f[0], f[1]))
        removed.append((name, round(gain, 4)))


def tune(scorer: Scorer, setting: Setting, within: np.ndarray) -> tuple[Setting, list]:
    """Each knob in turn may take another value of its grid (a weight now 0 may earn
    one): a change is kept only if it passes the rule against the value before it."""
    changed = []
    for knob in fine_knobs(setting):
        if knob.family == "cue":
            continue
        current = scorer.setting(setting)
        options = {p.label(): scorer.setting(apply(setting, [p])) for p in knob.options}
        result, label = _rule(scorer, current, options, within)
        if result.keep and label != "reference":
            patch = next(p for p in knob.options if p.label() == label)
            setting = apply(setting, [patch])
            changed.append((knob.name, knob.current, label))
    return setting, changed


def select(scorer: Scorer, base: Setting, within: np.ndarray | None = None
           ) -> tuple[Setting, dict]:
    """The protocol on the folds in ``within``: backward elimination, then values."""
    within = np.ones(len(scorer.datasets), bool) if within is None else within
    setting, removed = eliminate(scorer, base, within)
    setting, tuned = tune(scorer, setting, within)
    return setting, {"removed": removed, "tuned": tuned}


def changes(before: Setting, after: Setting) -> list[str]:
    """What differs between two settings, knob by knob."""
    now = {k.name: k.current for k in knobs_of(before, single_cues=True)}
    then = {k.name: k.current for k in knobs_of(after, single_cues=True)}
    return [f"{name}: {now.get(name, 'absent')} -> {then.get(name, 'absent')}"
            for name in sorted(set(now) | set(then)) if now.get(name) != then.get(name)]


def nested_scores(scorer: Scorer, base: Setting) -> tuple[np.ndarray, dict]:
    """Per question, its score under the setting the whole procedure selects without its
    fold (with inner folds of its own); and, per fold, what that selection changed."""
    out = np.zeros(len(scorer.datasets))
    decisions = {}
    for fold in np.unique(scorer.folds):
        chosen, log = select(scorer, base, scorer.folds != fold)
        held = scorer.folds == fold
        out[held] = scorer.setting(chosen)[held]
        decisions[str(fold)] = {**log, "changes": changes(base, chosen)}
        print(f"nested: {fold} done", file=sys.stderr, flush=True)
    return out, decisions


def fitted_scores(scorer: Scorer, base: Setting, *, focus: float | None = None
                  ) -> tuple[np.ndarray, dict]:
    """Per question, its score under channel weights fitted without its fold
    (`graphmem.evaluation.fusion_fit`); and the tables fitted per held-out fold."""
    out = np.zeros(len(scorer.datasets))
    tables = {}
    for fold in np.unique(scorer.folds):
        config = fit_fusion(scorer, base, scorer.folds != fold, focus=focus)
        held = scorer.folds == fold
        out[held] = scorer.setting(Setting(config, base.cues))[held]
        tables[str(fold)] = weight_tables(config)
    print("fitted fusion: nested done", file=sys.stderr, flush=True)
    return out, tables


_FEATURES: dict = {}  # (question, k, depth, channels) -> features, across folds


def fit_fusion(scorer: Scorer, base: Setting, train: np.ndarray, *,
               focus: float | None = None, ks=RRF_K_GRID, similarity: bool = False,
               l2: float = 0.01, metric_focus: bool = False,
               any_focus: float | None = None, kind_only=None, held=None,
               solver: str = "adam") -> RecallConfig:
    """Weights fitted on ``train`` for each RRF k of ``ks``; the k whose fitted config
    scores best on ``train`` (replayed) is kept. ``metric_focus``: ``focus`` only for the
    questions scored by recall_all, ``any_focus`` for those scored by recall_any.
    ``kind_only``: channel -> the kinds that may weigh it, ``held``: channel -> the kinds
    that hold it at 0, ``solver`` Adam's steps or the exact minimum
    (`fusion_fit.fit_config`)."""
    pairs = [(q, u.turns_of_memory) for u, q in scorer.questions]
    best: tuple[float, RecallConfig] | None = None
    for k in ks:
        config = fit_config(pairs, base.config.model_copy(update={"rrf_k": k}), train,
                            cache=_FEATURES, focus=focus, similarity=similarity, l2=l2,
                            focus_of=_metric_focus(focus, any_focus) if metric_focus else None,
                            kind_only=kind_only, held=held, solver=solver)
        value = objective(scorer.setting(Setting(config, base.cues)), train, scorer.datasets)
        if best is None or value > best[0] + 1e-9:
            best = (value, config)
    assert best is not None
    return best[1]


def _metric_focus(all_focus: float | None, any_focus: float | None):
    """A question's loss focus by the metric it is scored by."""
    def focus_of(question) -> float | None:
        return all_focus if metric_name(question.dataset).startswith("recall_all") else any_focus
    return focus_of


def weight_tables(config: RecallConfig) -> dict:
    route = config.route.model_dump(mode="json") if config.route is not None else None
    return {"rrf_k": config.rrf_k, "secondary_share": config.secondary_share, "route": route,
            "asker_profile": config.asker_profile, "fallback": dict(config.weights),
            **{str(kind): dict(t) for kind, t in config.kind_weights.items()}}


def config_of_tables(tables: dict) -> RecallConfig:
    """The recall config of weight tables as `weight_tables` writes them (its inverse: the
    "all folds" tables of a `cv_fitted` run). Tables written before a question in the
    first person moved profile's weight (`RecallConfig.asker_profile`) have no such move."""
    route = tables.get("route")
    return HYBRID.model_copy(update={
        "rrf_k": tables["rrf_k"], "secondary_share": tables["secondary_share"],
        "asker_profile": tables.get("asker_profile"),
        "route": RouteGate(**route) if route else None, "weights": tables["fallback"],
        "kind_weights": {kind: tables[kind.value] for kind in QueryKind}})


def run_protocol(units, tolerate_mismatch: bool = False) -> dict:
    started = time.perf_counter()
    scorer = Scorer(units)
    mismatches = scorer.check_replay(tolerate_mismatch)
    base = Setting(HYBRID)
    rows = judge_knobs(scorer, base)
    print(f"knobs judged alone in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    final, log = select(scorer, base)
    print(f"selected on all folds in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    nested, decisions = nested_scores(scorer, base)
    print(f"nested estimate in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    fitted, fitted_tables = fitted_scores(scorer, base)
    fitted_all = Setting(fit_fusion(scorer, base, np.ones(len(scorer.datasets), bool)),
                         base.cues)
    systems = {"graphmem shipped": scorer.setting(base),
               "graphmem protocol (nested)": nested,
               "graphmem final (all folds)": scorer.setting(final),
               "graphmem fitted fusion (nested)": fitted,
               "graphmem fitted fusion (all folds)": scorer.setting(fitted_all),
               **{name: scorer.baseline(name) for name in BASELINES}}
    from cv_tables import print_tables

    tables = print_tables(scorer, rows, systems, decisions, changes(base, final), log)
    return {"replay_mismatches": mismatches, "questions": len(scorer.questions),
            "knobs_alone": [_plain_row(r) for r in rows], "selection": log,
            "final_changes": changes(base, final),
            "final_config": final.config.model_dump(mode="json"),
            "final_cues": sorted(final.cues), "nested_decisions": decisions,
            "fitted_tables_per_fold": fitted_tables,
            "fitted_tables_all_folds": weight_tables(fitted_all.config), **tables}


def _plain_row(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "patch"}

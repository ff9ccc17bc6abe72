"""The steps of a fitted variant that choose on the training folds after the fit, each
by the objective there (`graphmem.evaluation.crossval.objective`):

    best_on(scorer, train, configs)        the best of some configs (the first wins ties;
                                           with a margin, the first within it of the best)
    one_question(scorer, train)            the margin a discrete choice must clear
    ascend(scorer, config, train, ...)     coordinate ascent on the objective itself
    shift_to_deposit / shift_with_gate     part of dense's weight moved to deposit
    fit_route / fitted_gate                a route gate fitted and its share chosen

`cv_fitted.fit_variant` strings them together as a `cv_fitted.FitVariant` asks.
"""

from __future__ import annotations

import numpy as np

from cv_report import Scorer
from graphmem.evaluation.captured import route_features_of
from graphmem.evaluation.crossval import objective
from graphmem.evaluation.knobs import Setting
from graphmem.evaluation.route_fit import ALWAYS, fit_gate, route_examples
from graphmem.retrieval.config import RecallConfig, may_route
from graphmem.retrieval.route import RouteGate


#: what one step of `ascend` tries for a weight w > 0 (as multiples of w), and at 0
ASCENT_FACTORS = (0.0, 0.5, 2.0)
ASCENT_FROM_ZERO = 0.25


def ascend(scorer: Scorer, config: RecallConfig, train: np.ndarray,
           channels: tuple[str, ...], *, guarded: bool = False,
           kinds: tuple[str, ...] = ()) -> RecallConfig:
    """One pass of coordinate ascent on the objective over ``train``: for each kind and
    each of ``channels`` in turn, the weight halved, doubled or set to 0 (at 0: set to
    `ASCENT_FROM_ZERO`), kept only if it scores better than the table before it (and,
    ``guarded``, lowers no dataset's mean over ``train``); only ``kinds``' tables if given."""
    for kind in sorted(config.kind_weights):
        if kinds and kind not in kinds:
            continue
        for channel in channels:
            weight = config.kind_weights[kind].get(channel, 0.0)
            options = ([round(f * weight, 3) for f in ASCENT_FACTORS] if weight > 0
                       else [ASCENT_FROM_ZERO])
            config = best_on(scorer, train, [config, *(
                config.model_copy(update={"kind_weights": {
                    **config.kind_weights,
                    kind: {**config.kind_weights[kind], channel: value}}})
                for value in options if value != weight)], guarded=guarded)
    return config


def shift_to_deposit(scorer: Scorer, config: RecallConfig, train: np.ndarray,
                     shifts: tuple[float, ...], kinds: tuple[str, ...] = (), *,
                     margin: float = 0.0) -> RecallConfig:
    """``config`` with, for each kind in turn (of ``kinds``; all if empty), the share of
    its dense weight moved to deposit that scores best on ``train`` (of ``shifts``; the
    first wins ties; with ``margin``, the first within it of the best, as `best_on`)."""
    for kind in sorted(config.kind_weights):
        if kinds and kind not in kinds:
            continue
        config = best_on(scorer, train, [dense_moved(config, kind, share) for share in shifts],
                         margin=margin)
    return config


def dense_moved(config: RecallConfig, kind, share: float) -> RecallConfig:
    """``config`` with ``share`` of ``kind``'s dense weight moved to deposit."""
    table = dict(config.kind_weights[kind])
    moved = share * table.get("dense", 0.0)
    table["dense"] = round(table.get("dense", 0.0) - moved, 3)
    table["deposit"] = round(table.get("deposit", 0.0) + moved, 3)
    return config.model_copy(update={"kind_weights": {**config.kind_weights, kind: table}})


def shift_with_gate(scorer: Scorer, config: RecallConfig, train: np.ndarray,
                    shifts: tuple[float, ...], kinds: tuple[str, ...],
                    features: tuple[str, ...], shares: tuple[float, ...],
                    per_share: bool = False, *, margin: float = 0.0) -> RecallConfig:
    """``config`` with, for each kind in turn (of ``kinds``; all if empty), the share of
    its dense weight moved to deposit chosen together with the route gate: for every
    shift a gate fitted on the moved tables (`fit_route`: its share, or no gate, chosen
    there), then the shift whose pair scores best on ``train`` (the first wins ties; with
    ``margin``, the first within it of the best, as `best_on`). The gate is fitted on the tables it
    will route to, not on tables the shift replaces afterwards."""
    for kind in sorted(config.kind_weights):
        if kinds and kind not in kinds:
            continue
        config = best_on(scorer, train, [
            fit_route(scorer, dense_moved(config.model_copy(update={"route": None}), kind,
                                          share), train, features, shares, per_share,
                      margin=margin)
            for share in shifts], margin=margin)
    return config


def best_on(scorer: Scorer, train: np.ndarray, configs: list[RecallConfig], *,
            guarded: bool = False, margin: float = 0.0) -> RecallConfig:
    """The config of ``configs`` with the best objective on ``train``, the first wins
    ties; ``margin``: the first of those within ``margin`` of the best (``configs`` are
    listed simplest first: an option must beat every simpler one by more than
    ``margin`` to be chosen). ``guarded``: among those that lower no dataset's mean there
    against the first."""
    values = [objective(scorer.setting(Setting(c)), train, scorer.datasets) for c in configs]
    allowed = [True] * len(configs)
    if guarded:
        means = [_dataset_means(scorer, c, train) for c in configs]
        allowed = [all(each[d] >= means[0][d] - 1e-9 for d in means[0]) for each in means]
    best = 0
    for i, value in enumerate(values):
        if allowed[i] and value > values[best] + 1e-9:
            best = i
    if margin > 0:
        best = next(i for i, value in enumerate(values)
                    if allowed[i] and value >= values[best] - margin - 1e-9)
    return configs[best]


def one_question(scorer: Scorer, train: np.ndarray) -> float:
    """One question of the smallest dataset in ``train``, in objective units (each
    dataset counts once: 1 / its questions there / the datasets there): a discrete
    choice that gains less than this on the training folds gains less than one
    question of some dataset, which is what a channel that knows nothing gains through
    a refit (the twenty-ninth session's placebo)."""
    counts = [int((train & (scorer.datasets == d)).sum())
              for d in np.unique(scorer.datasets[train])]
    return 1.0 / min(counts) / len(counts)


def _dataset_means(scorer: Scorer, config: RecallConfig, train: np.ndarray
                   ) -> dict[str, float]:
    scores = scorer.setting(Setting(config))
    return {d: float(scores[train & (scorer.datasets == d)].mean())
            for d in np.unique(scorer.datasets[train])}


def fit_route(scorer: Scorer, config: RecallConfig, train: np.ndarray,
              features: tuple[str, ...], shares: tuple[float, ...],
              per_share: bool = False, *, margin: float = 0.0) -> RecallConfig:
    """``config`` with a route gate fitted on ``train`` (`fitted_gate`), its share chosen
    on ``train`` from ``shares``, against no gate (which wins ties; with ``margin``, the
    first within it of the best, as `best_on`). ``per_share``: a
    gate fitted for each share (its labels replayed at that share), else one gate fitted
    at the full target weights, given each share in turn."""
    if per_share:
        gates = [fitted_gate(scorer, config, train, features, share) for share in shares]
    else:
        gate = fitted_gate(scorer, config, train, features, 1.0)
        gates = [gate.model_copy(update={"share": share}) for share in shares]
    return best_on(scorer, train, [config, *(config.model_copy(update={"route": g})
                                             for g in gates)], margin=margin)


def fitted_gate(scorer: Scorer, config: RecallConfig, train: np.ndarray,
                features: tuple[str, ...], share: float) -> RouteGate:
    """A route gate (`route_fit.fit_gate`) fitted on ``train``: labels from replaying
    each eligible question under its kind's weights and routed at ``share``."""
    with_all = config.model_copy(update={"route": ALWAYS.model_copy(update={"share": share})})
    kind_scores = scorer.setting(Setting(config))
    target_scores = scorer.setting(Setting(with_all))
    classes = [q.captured.query_class() for _, q in scorer.questions]
    eligible = train & np.array([may_route(with_all, c) for c in classes])
    mask, y, weight = route_examples(kind_scores, target_scores, scorer.datasets,
                                     eligible, train)
    x = np.array([list(route_features_of(q.captured, with_all, c, features).values())
                  if e else [0.0] * len(features)
                  for (_, q), c, e in zip(scorer.questions, classes, mask)])
    return fit_gate(x[mask], y[mask], weight[mask], features, share=share)

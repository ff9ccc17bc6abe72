"""What a channel gives, told apart from what refitting the fusion gives.

    channels_off(config, channels)       the config, those channels weighted 0 in every table
    told_apart(variant, off, ...)        a variant against its own tables with its added
                                         channels at 0, and those against the reference
    attribute_each(reference, each_off)  each channel switched off in the reference's tables

A variant that adds a channel is fitted again with its column, and the refit moves every
other weight and the choices made after the fit; a channel that knows nothing passes the
rule that way in some runs (`benchmarks/placebo_channel.py`). Scoring a fold's own tables
with the channel at 0 is a paired comparison (the same tables, the same questions): what
the channel itself gives. `cv_fitted.run_fitted` prints both parts; they add up to the
whole.
"""

from __future__ import annotations

import numpy as np

from cv_report import Scorer
from graphmem.evaluation.crossval import FoldScores, fold_table, verdict
from graphmem.retrieval.config import RecallConfig


def channels_off(config: RecallConfig, channels: tuple[str, ...]) -> RecallConfig:
    """``config`` with ``channels`` weighted 0 in every table (the fallback, each kind's,
    the route gate's), every other weight as fitted."""
    def off(table):
        return {c: (0.0 if c in channels else w) for c, w in dict(table).items()}

    route = config.route
    if route is not None and route.weights is not None:
        route = route.model_copy(update={"weights": off(route.weights)})
    return config.model_copy(update={
        "weights": off(config.weights), "route": route,
        "kind_weights": {kind: off(t) for kind, t in config.kind_weights.items()}})


def told_apart(variant: np.ndarray, off: np.ndarray, reference: FoldScores, scorer: Scorer,
               channels: tuple[str, ...], against: str) -> dict:
    """The variant's scores (``variant``) against its own tables with ``channels`` at 0
    (``off``): what the channels give, with the questions each dataset moves up and down;
    and ``off`` against ``reference`` (the procedure named ``against``): what the refit
    gives. Printed, and returned for the run's verdicts."""
    off_folds = fold_table(off, scorer.datasets, scorer.folds)
    own = verdict(fold_table(variant, scorer.datasets, scorer.folds), off_folds)
    refit = verdict(off_folds, reference)
    moved = questions_moved(variant, off, scorer.datasets)
    print(f"  - its own tables with {', '.join(channels)} at 0, against the variant (what "
          f"the channels give): {said(own)}; questions up / down with the channels: "
          + ", ".join(f"{d} {up} / {down}" for d, (up, down) in moved.items()))
    print(f"  - the same against {against} (what the refit gives): {said(refit)}")
    return {"channels": channels, "own": {**verdict_row(own), "questions_up_down": moved},
            "refit": verdict_row(refit)}


def attribute_each(reference: FoldScores, each_off: dict[str, np.ndarray], scorer: Scorer,
                   against: str) -> dict:
    """Each channel of ``each_off`` (its scores with the reference's own tables and that
    channel at 0) judged by the rule: the tables whole against the tables without it."""
    print(f"\nEach channel of {against}, switched off in each fold's own tables (no refit), "
          "against those tables whole: keep = the channel earns its weight")
    out = {}
    for channel, off in each_off.items():
        result = verdict(reference, fold_table(off, scorer.datasets, scorer.folds))
        out[channel] = verdict_row(result)
        print(f"- {channel}: {said(result)}")
    return out


def questions_moved(scores: np.ndarray, other: np.ndarray, datasets: np.ndarray
                    ) -> dict[str, tuple[int, int]]:
    """Per dataset, how many questions ``scores`` scores higher than ``other`` and how
    many lower."""
    return {str(d): (int((scores[datasets == d] > other[datasets == d]).sum()),
                     int((scores[datasets == d] < other[datasets == d]).sum()))
            for d in sorted(np.unique(datasets))}


def verdict_row(result) -> dict:
    """A verdict as the run's JSON keeps it."""
    return {"keep": result.keep, "gain": result.mean_gain, "worst": result.worst_change,
            "reason": result.reason}


def said(result) -> str:
    """A verdict as the run prints it."""
    return (f"{'keep' if result.keep else 'remove'} ({result.reason}; mean "
            f"{result.mean_gain:+.4f}; worst " + ", ".join(
                f"{d} {c:+.3f}" for d, c in result.worst_change.items()) + ")")

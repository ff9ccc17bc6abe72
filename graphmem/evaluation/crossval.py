"""The selection rule of cross-validation: which knob settings survive held-out folds.

Pure functions over per-question scores; no store, no model. Every question belongs to a
``dataset`` (a benchmark, or one form of it) and a ``fold`` (the group held out together:
a LoCoMo conversation, a PrefEval topic group). Fold names may span datasets: a PrefEval
topic group held out is held out of every form at once.

    objective(scores, mask, datasets)      mean over datasets of the mean score in ``mask``
    cross_validate(options, ...)           per held-out fold, the option chosen on the other
                                           folds, and its held-out score per dataset
    verdict(selected, off)                 the rule: keep a knob only if it raises the mean
                                           over held-out folds (averaged over datasets) and
                                           lowers no dataset's worst fold

``options`` maps an option's label to its per-question score array; the first label is
the knob removed ("off"), which wins ties: fewer knobs on equal evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["FoldScores", "Verdict", "cross_validate", "fold_table", "objective", "verdict"]

#: a mean must rise by more than this to count (float noise, not a tolerance for luck)
EPS = 1e-9


def objective(scores: np.ndarray, mask: np.ndarray, datasets: np.ndarray) -> float:
    """Mean over the datasets present in ``mask`` of their mean score there (each
    dataset counts once, however many questions it has)."""
    means = [scores[mask & (datasets == d)].mean() for d in np.unique(datasets[mask])]
    return float(np.mean(means)) if means else 0.0


@dataclass
class FoldScores:
    """Held-out scores of one selection: (dataset, fold) -> mean, and what was chosen."""

    scores: dict[tuple[str, str], float] = field(default_factory=dict)
    chosen: dict[str, str] = field(default_factory=dict)  # fold -> option label

    def per_dataset(self) -> dict[str, dict[str, float]]:
        """dataset -> fold -> score."""
        out: dict[str, dict[str, float]] = {}
        for (dataset, fold), value in sorted(self.scores.items()):
            out.setdefault(dataset, {})[fold] = value
        return out

    def summary(self) -> dict[str, tuple[float, float]]:
        """dataset -> (mean over its folds, worst fold)."""
        return {d: (float(np.mean(list(f.values()))), float(min(f.values())))
                for d, f in self.per_dataset().items()}


def fold_table(scores: np.ndarray, datasets: np.ndarray, folds: np.ndarray,
               within: np.ndarray | None = None) -> FoldScores:
    """The held-out score of one fixed setting on every (dataset, fold)."""
    out = FoldScores()
    keep = np.ones(len(scores), bool) if within is None else within
    for d in np.unique(datasets[keep]):
        for f in np.unique(folds[keep & (datasets == d)]):
            sel = keep & (datasets == d) & (folds == f)
            out.scores[(str(d), str(f))] = float(scores[sel].mean())
    return out


def choose(options: Mapping[str, np.ndarray], mask: np.ndarray, datasets: np.ndarray) -> str:
    """The option with the best objective on ``mask``; ties go to the earliest label."""
    best_label, best = "", -np.inf
    for label, scores in options.items():
        value = objective(scores, mask, datasets)
        if value > best + EPS:
            best_label, best = label, value
    return best_label


def cross_validate(options: Mapping[str, np.ndarray], datasets: np.ndarray,
                   folds: np.ndarray, within: np.ndarray | None = None) -> FoldScores:
    """For each fold (of the questions in ``within``): choose on the rest, score on it."""
    keep = np.ones(len(datasets), bool) if within is None else within
    out = FoldScores()
    for f in np.unique(folds[keep]):
        held = keep & (folds == f)
        label = choose(options, keep & ~held, datasets)
        out.chosen[str(f)] = label
        for d in np.unique(datasets[held]):
            sel = held & (datasets == d)
            out.scores[(str(d), str(f))] = float(options[label][sel].mean())
    return out


@dataclass(frozen=True)
class Verdict:
    """Whether a knob survives, and the figures that decided it."""

    keep: bool
    mean_gain: float  # mean over datasets of (selected - off) fold means
    worst_change: dict[str, float]  # dataset -> selected worst fold - off worst fold
    reason: str


def verdict(selected: FoldScores, off: FoldScores) -> Verdict:
    """Keep only if the mean rises and no dataset's worst fold falls."""
    sel, base = selected.summary(), off.summary()
    if not base:
        return Verdict(False, 0.0, {}, "no held-out fold to judge it on")
    gain = float(np.mean([sel[d][0] - base[d][0] for d in base]))
    worst = {d: sel[d][1] - base[d][1] for d in base}
    lowered = sorted(d for d, change in worst.items() if change < -EPS)
    if gain <= EPS:
        return Verdict(False, gain, worst, "does not raise the mean")
    if lowered:
        return Verdict(False, gain, worst, f"lowers the worst fold of {', '.join(lowered)}")
    return Verdict(True, gain, worst, "raises the mean, no worst fold lower")


def inner_verdict(options: Mapping[str, np.ndarray], datasets: np.ndarray, folds: np.ndarray,
                  within: np.ndarray, off_label: str) -> tuple[bool, str]:
    """The rule applied inside ``within`` only (for a nested estimate): the verdict, and
    the option chosen on all of ``within`` if kept (else ``off_label``)."""
    selected = cross_validate(options, datasets, folds, within)
    off = fold_table(options[off_label], datasets, folds, within)
    if not verdict(selected, off).keep:
        return False, off_label
    return True, choose(options, within, datasets)


def labels_in_order(off_label: str, labels: Sequence[str]) -> list[str]:
    """``off_label`` first (it wins ties), then the others in their order."""
    return [off_label, *[label for label in labels if label != off_label]]

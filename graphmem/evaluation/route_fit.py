"""The route gate (`graphmem.retrieval.route`) fitted on captured questions.

A question the classifier does not put in the gate's target kind can be scored twice by
replay: under its own kind's weights and under the target kind's. Where the two differ,
the better one is the label; how much better, divided among its dataset's questions (each
dataset counts once, as in ``crossval.objective``), is the example's weight. A weighted
logistic regression over the question's route features (standardised, L2-penalised)
then says which questions the target's weights serve better:

    route_examples(kind_scores, target_scores, datasets, eligible, within)
                                                     -> (mask, y, weight)
    fit_gate(x, y, weight, features, share=...)                      -> RouteGate
    ALWAYS                                                          a gate that always
                                                                    fires (the target's
                                                                    scores, by replay)

How much of the target's weights a routed question takes (the gate's ``share``) is
chosen by the caller on the same training folds (``benchmarks/cv_fitted.py``).

May import graphmem.retrieval; nothing in the core imports it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphmem.retrieval.classify import QueryKind
from graphmem.retrieval.route import RouteGate

__all__ = ["ALWAYS", "fit_gate", "route_examples"]

#: a gate that routes every question it is asked about, all the way
ALWAYS = RouteGate(features=(), mean=(), scale=(), coef=(), intercept=50.0, share=1.0)


def route_examples(kind_scores: np.ndarray, target_scores: np.ndarray, datasets: np.ndarray,
                   eligible: np.ndarray, within: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mask, y, weight) over all questions: ``mask`` the eligible questions (a subset
    of ``within``, the training folds) whose two scores differ, ``y`` the target's
    weights score higher, ``weight`` the difference over the number of questions of its
    dataset in ``within`` (what one question moves its dataset's mean by)."""
    mask = eligible & within & (kind_scores != target_scores)
    counts = {d: int((within & (datasets == d)).sum()) for d in np.unique(datasets)}
    per = np.array([max(counts[d], 1) for d in datasets], float)
    return mask, target_scores > kind_scores, np.abs(target_scores - kind_scores) / per


def fit_gate(x: np.ndarray, y: np.ndarray, weight: np.ndarray, features: Sequence[str], *,
             share: float = 1.0, target: QueryKind = QueryKind.PREFERENCE,
             l2: float = 0.01, steps: int = 2000, lr: float = 1.0) -> RouteGate:
    """A logistic gate over ``x`` (a row per example, a column per feature) fitted to
    ``y`` with example weights ``weight`` (normalised to sum 1); the intercept is not
    penalised. No example of either label: a gate that never fires."""
    features = tuple(features)
    n = len(features)
    if len(x) == 0 or y.all() or not y.any():
        return RouteGate(features=features, mean=(0.0,) * n, scale=(1.0,) * n,
                         coef=(0.0,) * n, intercept=-50.0, share=share, target=target)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = weight / weight.sum()
    beta = np.zeros(n + 1)
    penalty = np.r_[np.full(n, l2), 0.0]
    for _ in range(steps):  # gradient descent on a convex loss: no local optimum
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ beta, -50, 50)))
        beta -= lr * (z.T @ (w * (p - y)) + penalty * beta)
    return RouteGate(features=features, mean=tuple(float(v) for v in mean),
                     scale=tuple(float(v) for v in scale),
                     coef=tuple(round(float(v), 6) for v in beta[:n]),
                     intercept=round(float(beta[n]), 6), share=share, target=target)

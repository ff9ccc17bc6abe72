"""The route gate fitted by weighted logistic regression on replayed labels."""

from __future__ import annotations

import numpy as np

from graphmem.evaluation.route_fit import ALWAYS, fit_gate, route_examples
from graphmem.retrieval.classify import QueryKind


def test_examples_are_the_eligible_questions_that_differ_weighted_by_dataset():
    kind = np.array([1.0, 0.0, 1.0, 0.5, 1.0])
    target = np.array([0.0, 1.0, 1.0, 1.0, 0.0])
    datasets = np.array(["a", "a", "a", "b", "b"])
    eligible = np.array([True, True, True, True, False])
    within = np.array([True, True, True, True, True])
    mask, y, weight = route_examples(kind, target, datasets, eligible, within)
    assert mask.tolist() == [True, True, False, True, False]
    assert y[mask].tolist() == [False, True, True]
    assert np.allclose(weight[mask], [1 / 3, 1 / 3, 0.5 / 2])


def test_a_gate_is_fitted_to_the_side_that_scores_better():
    rng = np.random.default_rng(0)
    nearest = rng.uniform(0, 1, 400)
    y = nearest < 0.3  # far from every memory: the target's weights do better
    gate = fit_gate(nearest[:, None], y, np.ones(400), ("nearest",), share=0.5)
    fired = np.array([gate.fires({"nearest": v}) for v in nearest])
    assert (fired == y).mean() > 0.95
    assert gate.share == 0.5 and gate.target == QueryKind.PREFERENCE


def test_no_example_of_one_side_gives_a_gate_that_never_fires():
    gate = fit_gate(np.zeros((3, 1)), np.zeros(3, bool), np.ones(3), ("nearest",))
    assert not gate.fires({"nearest": 0.0})


def test_the_always_gate_fires_on_anything():
    assert ALWAYS.fires({})

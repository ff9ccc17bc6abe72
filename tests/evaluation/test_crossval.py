"""The selection rule: choices never see the held-out fold; a knob must earn its place."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from graphmem.evaluation.crossval import (choose, cross_validate, fold_table, inner_verdict,
                                          objective, verdict)

DATASETS = np.array(["a"] * 6 + ["b"] * 4)
FOLDS = np.array(["f1", "f1", "f2", "f2", "f3", "f3", "g1", "g1", "g2", "g2"])


def test_objective_counts_each_dataset_once():
    scores = np.array([1.0] * 6 + [0.0] * 4)
    assert objective(scores, np.ones(10, bool), DATASETS) == 0.5


def test_the_held_out_fold_never_decides_its_own_option():
    off = np.zeros(10)
    # "on" wins on f1 only by a lot, loses on every other fold
    on = np.array([1, 1, 0, 0, 0, 0, 0, 0, 0, 0], float) - np.array([0, 0, 1, 1, 1, 1, 1, 1, 1, 1]) * 0.1
    chosen = cross_validate({"off": off, "on": on}, DATASETS, FOLDS).chosen
    assert chosen["f1"] == "off"


def test_ties_go_to_the_knob_removed():
    same = np.linspace(0, 1, 10)
    assert choose({"off": same, "on": same.copy()}, np.ones(10, bool), DATASETS) == "off"


@given(st.lists(st.floats(0, 1), min_size=10, max_size=10))
def test_a_knob_that_changes_nothing_is_never_kept(values):
    scores = np.array(values)
    options = {"off": scores, "on": scores.copy()}
    result = verdict(cross_validate(options, DATASETS, FOLDS), fold_table(scores, DATASETS, FOLDS))
    assert not result.keep


@given(st.lists(st.floats(0, 0.5), min_size=10, max_size=10))
def test_a_knob_better_everywhere_is_kept(values):
    off = np.array(values)
    result = verdict(cross_validate({"off": off, "on": off + 0.25}, DATASETS, FOLDS),
                     fold_table(off, DATASETS, FOLDS))
    assert result.keep and abs(result.mean_gain - 0.25) < 1e-9


def test_a_knob_that_lowers_one_datasets_worst_fold_is_removed():
    off = np.full(10, 0.5)
    on = off.copy()
    on[:6] += 0.3  # better on every fold of a
    on[8:] -= 0.1  # worse on b's fold g2, and its worst fold
    result = verdict(cross_validate({"off": off, "on": on}, DATASETS, FOLDS),
                     fold_table(off, DATASETS, FOLDS))
    assert result.mean_gain > 0 and not result.keep and "b" in result.reason


def test_inner_verdict_looks_only_inside_its_folds():
    off = np.zeros(10)
    on = np.zeros(10)
    on[:2] = 1.0  # only f1 likes it
    within = FOLDS != "f1"
    keep, label = inner_verdict({"off": off, "on": on}, DATASETS, FOLDS, within, "off")
    assert (keep, label) == (False, "off")

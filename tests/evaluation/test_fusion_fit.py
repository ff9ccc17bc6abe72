"""Channel weights fitted from ranks: the informative channel earns the weight."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.evaluation.captured import Captured
from graphmem.evaluation.fusion_fit import fit_weights, question_features


def _examples(rng, n_questions=60, n_candidates=30):
    """Channel 0 ranks the relevant candidate near the top; channel 1 at random."""
    out = []
    for _ in range(n_questions):
        good = rng.integers(n_candidates)
        rank0 = rng.permutation(n_candidates) + 1
        rank0[[good, np.argmin(rank0)]] = rank0[[np.argmin(rank0), good]]
        rank1 = rng.permutation(n_candidates) + 1
        x = 60.0 / (60 + np.stack([rank0, rank1], axis=1))
        y = np.zeros(n_candidates, bool)
        y[good] = True
        out.append((x, y, 1.0))
    return out


def test_the_informative_channel_gets_the_larger_weight():
    w = fit_weights(_examples(np.random.default_rng(0)), 2)
    assert w[0] == 1.0 and w[1] < 0.5


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000))
def test_weights_are_non_negative_and_scaled_to_one(seed):
    w = fit_weights(_examples(np.random.default_rng(seed), 10, 8), 2)
    assert (w >= 0).all() and np.isclose(w.max(), 1.0)


def test_features_are_the_rrf_terms_and_labels_follow_the_evidence():
    captured = Captured(text="q", cues=(), rankings={"a": ["m1", "m2"], "b": ["m2"]})
    x, y = question_features(captured, ("t2",), {"m1": ["t1"], "m2": ["t2"]}, ["a", "b"],
                             k=60, depth=50)
    assert np.allclose(x, [[60 / 61, 0], [60 / 62, 60 / 61]])
    assert y.tolist() == [False, True]

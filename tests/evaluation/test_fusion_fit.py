"""Channel weights fitted from ranks: the informative channel earns the weight."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.evaluation.captured import Captured
from graphmem.evaluation.fusion_fit import fit_config, fit_weights, question_features
from graphmem.retrieval.classify import QueryKind
from graphmem.retrieval.config import HYBRID


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


def _two_evidence_examples(rng, n_questions=60, n_candidates=30):
    """Two relevant candidates per question. Channel 0 ranks one of them first and the
    other last; channel 1 ranks both among its first five."""
    out = []
    for _ in range(n_questions):
        order = rng.permutation(n_candidates)
        a, b = order[:2]
        rank0 = np.empty(n_candidates, int)
        rank0[order] = np.arange(1, n_candidates + 1)
        rank0[[b, order[-1]]] = rank0[[order[-1], b]]  # b last for channel 0
        rank1 = rng.permutation(n_candidates) + 1
        for good, slot in ((a, 3), (b, 5)):  # a, b at ranks 3 and 5 of channel 1
            other = np.flatnonzero(rank1 == slot)[0]
            rank1[[good, other]] = rank1[[other, good]]
        x = 10.0 / (10 + np.stack([rank0, rank1], axis=1))
        y = np.zeros(n_candidates, bool)
        y[[a, b]] = True
        out.append((x, y, 1.0))
    return out


def test_the_all_evidence_loss_favours_the_channel_that_finds_every_relevant_one():
    examples = _two_evidence_examples(np.random.default_rng(1))
    any_first = fit_weights(examples, 2)
    all_evidence = fit_weights(examples, 2, focus=0.1)
    assert all_evidence[1] / max(all_evidence[0], 1e-9) > any_first[1] / max(any_first[0], 1e-9)
    assert all_evidence[1] == 1.0


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.05, 10.0))
def test_focused_weights_are_non_negative_and_scaled_to_one(seed, focus):
    w = fit_weights(_examples(np.random.default_rng(seed), 10, 8), 2, focus=focus)
    assert (w >= 0).all() and np.isclose(w.max(), 1.0)


def test_a_channel_that_never_ranks_anything_is_pinned_to_zero():
    examples = _examples(np.random.default_rng(1))
    silent = [(np.column_stack([x, np.zeros(len(x))]), y, w) for x, y, w in examples]
    w = fit_weights(silent, 3, prior=np.ones(3))
    assert w[2] == 0.0 and w[0] == 1.0


def test_a_silent_channel_stays_at_zero_when_every_channel_is_silent():
    x = np.zeros((4, 2))
    y = np.array([True, False, False, False])
    assert (fit_weights([(x, y, 1.0)], 2) == 0).all()


def test_the_soft_minimum_favours_the_channel_that_puts_some_relevant_one_first():
    examples = _two_evidence_examples(np.random.default_rng(1))
    all_evidence = fit_weights(examples, 2, focus=0.1)
    any_evidence = fit_weights(examples, 2, focus=-0.1)
    assert any_evidence[0] / max(any_evidence[1], 1e-9) > all_evidence[0] / max(all_evidence[1], 1e-9)


def test_one_focus_per_question_is_the_shared_focus_when_they_agree():
    examples = _two_evidence_examples(np.random.default_rng(2), n_questions=20)
    shared = fit_weights(examples, 2, focus=0.5)
    each = fit_weights(examples, 2, focus=[0.5] * len(examples))
    assert np.allclose(shared, each)
    assert np.allclose(fit_weights(examples, 2), fit_weights(examples, 2, focus=[None] * 20))


def test_a_pinned_channel_stays_at_zero_however_informative():
    examples = _examples(np.random.default_rng(3))
    free = fit_weights(examples, 2)
    pinned = fit_weights(examples, 2, pinned=np.array([True, False]))
    assert free[0] == 1.0
    assert pinned[0] == 0.0 and pinned[1] == 1.0


def test_a_channel_fitted_for_one_kind_is_held_at_zero_in_every_other_table():
    """``kind_only``: the channel that finds every relevant memory earns weight in the
    preference kind's table alone; the other kinds and the table fitted on every kind
    (the fallback) hold it at 0, however well it ranks their questions."""
    rng = np.random.default_rng(4)
    questions = []
    for i in range(40):
        ids = [f"m{i}-{j}" for j in range(12)]
        good = ids[rng.integers(12)]
        cues = (("preference", "recommend", 1.0),) if i % 2 else ()  # else factual
        rankings = {"dense": list(rng.permutation(ids)),
                    "constraints": [good, *[m for m in ids if m != good]]}
        captured = Captured(text="q", cues=cues, rankings=rankings)
        question = SimpleNamespace(dataset="d", captured=captured, evidence=(f"t{i}",))
        questions.append((question, {good: [f"t{i}"]}))
    # weighed as a channel of its own, not as the asker's stand-in for profile
    base = HYBRID.model_copy(update={"channels": ("dense", "constraints"), "asker_profile": None})
    within = np.ones(len(questions), bool)
    free = fit_config(questions, base, within)
    scoped = fit_config(questions, base, within,
                        kind_only={"constraints": {QueryKind.PREFERENCE}})
    assert free.weights["constraints"] > 0 and free.kind_weights[QueryKind.FACTUAL]["constraints"] > 0
    assert scoped.kind_weights[QueryKind.PREFERENCE]["constraints"] > 0
    assert scoped.weights["constraints"] == 0.0
    assert all(table["constraints"] == 0.0 for kind, table in scoped.kind_weights.items()
               if kind is not QueryKind.PREFERENCE)
    # ``held``: the other way round, the channel at 0 in the preference kind's table alone,
    # fitted in every other table, the fallback's included
    held = fit_config(questions, base, within, held={"constraints": {QueryKind.PREFERENCE}})
    assert held.kind_weights[QueryKind.PREFERENCE]["constraints"] == 0.0
    assert held.kind_weights[QueryKind.PREFERENCE]["dense"] == 1.0
    assert held.kind_weights[QueryKind.FACTUAL]["constraints"] > 0
    assert held.weights["constraints"] > 0
    # the asker's channel (`RecallConfig.asker_profile`) takes profile's weight for a
    # question in the first person and is never fitted, however well it ranks
    asker = fit_config(questions, base.model_copy(update={"asker_profile": "constraints"}),
                       within)
    assert asker.weights.get("constraints", 0.0) == 0.0
    assert all(t.get("constraints", 0.0) == 0.0 for t in asker.kind_weights.values())
    assert asker.weights["dense"] == 1.0


def _with_a_column_ranking_the_relevant_last(examples, rng):
    """``examples`` with one more channel that ranks every relevant candidate below
    every irrelevant one: the loss's minimum holds it at 0."""
    out = []
    for x, y, weight in examples:
        ranks = np.where(y, len(y), 1 + rng.integers(0, len(y) - 1, len(y)))
        out.append((np.hstack([x, (60.0 / (60 + ranks))[:, None]]), y, weight))
    return out


def _with_a_random_channel(examples, rng):
    return [(np.hstack([x, 60.0 / (60 + 1 + rng.permutation(len(y)))[:, None]]), y, weight)
            for x, y, weight in examples]


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([None, 1.0, -1.0]))
def test_a_column_the_minimum_holds_at_zero_moves_no_other_weight(seed, focus):
    """The exact fit: a channel that only hurts ends at 0 and leaves every other weight
    where it was (the loss is convex, its minimum unique). Adam's 300 steps from the
    prior need not: where they stop depends on the path the extra column bends."""
    rng = np.random.default_rng(seed)
    examples = _with_a_random_channel(_examples(rng, 40, 12), rng)
    without = fit_weights(examples, 3, focus=focus, solver="exact")
    with_it = fit_weights(_with_a_column_ranking_the_relevant_last(examples, rng), 4,
                          focus=focus, solver="exact")
    assert with_it[3] == 0.0
    assert np.allclose(with_it[:3], without, atol=1e-6), (with_it, without)


def test_the_exact_fit_is_where_adam_goes_on_an_easy_problem():
    examples = _examples(np.random.default_rng(1))
    assert np.allclose(fit_weights(examples, 2, solver="exact"), fit_weights(examples, 2),
                       atol=1e-3)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_the_gradient_the_fit_follows_is_its_loss_s(seed):
    """`fusion_fit._loss`: its gradient (the one Adam steps along) against central
    differences of its value, with each kind of focus."""
    from graphmem.evaluation import fusion_fit

    rng = np.random.default_rng(seed)
    examples = _with_a_random_channel(_examples(rng, 20, 10), rng)
    for _, y, _ in examples[::3]:  # some questions with more than one relevant memory
        y[rng.integers(len(y))] = True
    for focus in (None, 1.0, -1.0, [None if i % 2 else 0.5 for i in range(len(examples))]):
        d, pw, group, group_q, per_group, kept = fusion_fit._pairs(examples, 3)
        tau = fusion_fit._temperatures(focus, kept)
        args = (d, pw, group, group_q, per_group, tau, np.ones(3), 0.01)
        w = rng.random(3)
        _, grad = fusion_fit._loss(w, *args)
        step = 1e-6
        numeric = [(fusion_fit._loss(w + e, *args)[0] - fusion_fit._loss(w - e, *args)[0])
                   / (2 * step) for e in np.eye(3) * step]
        assert np.allclose(grad, numeric, atol=1e-6), (focus, grad, numeric)


def test_an_unknown_solver_is_refused():
    import pytest

    with pytest.raises(ValueError, match="solver must be 'adam' or 'exact'"):
        fit_weights(_examples(np.random.default_rng(0), 5, 5), 2, solver="newton")

"""Metrics of the evaluation harness: worked examples and properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.evaluation.metrics import (ndcg_any_at_k, percentile, rank_sessions, rank_turns,
                                         recall_all_at_k, recall_any_at_k, summarise_scores)

ids = st.text(alphabet="abcdefgh", min_size=1, max_size=2)
rankings = st.lists(ids, unique=True, max_size=12)
relevant_sets = st.sets(ids, min_size=1, max_size=4)
ks = st.integers(min_value=1, max_value=15)


def test_rank_turns_orders_by_best_memory_and_deduplicates():
    turns_of = {"m1": ["D1:2"], "m2": ["D1:1", "D1:2"], "m3": ["D1:3"]}
    # m2 is a merge of two turns; D1:2 already came with m1
    assert rank_turns(["m1", "m2", "unknown", "m3"], turns_of) == ["D1:2", "D1:1", "D1:3"]
    assert rank_turns(["m1", "m2", "m3"], turns_of, k=2) == ["D1:2", "D1:1"]


def test_rank_sessions_keeps_first_appearance():
    session_of = {"a:0": "a", "b:0": "b", "a:1": "a"}
    assert rank_sessions(["a:1", "b:0", "a:0"], session_of) == ["a", "b"]


def test_worked_examples():
    ranked = ["x", "e1", "y", "e2"]
    assert recall_all_at_k(ranked, {"e1", "e2"}, 3) == 0.0
    assert recall_all_at_k(ranked, {"e1", "e2"}, 4) == 1.0
    assert recall_any_at_k(ranked, {"e1", "e2"}, 2) == 1.0
    assert recall_any_at_k(ranked, {"e1", "e2"}, 1) == 0.0
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert ndcg_any_at_k(ranked, {"e1", "e2"}, 4) == pytest.approx(expected)
    assert ndcg_any_at_k(["e1"], {"e1"}, 10) == 1.0


def test_empty_relevant_set_is_refused():
    with pytest.raises(ValueError, match="at least one relevant id"):
        recall_all_at_k(["a"], [], 5)


@given(rankings, relevant_sets, ks)
def test_scores_are_bounded_and_ordered(ranked, relevant, k):
    all_ = recall_all_at_k(ranked, relevant, k)
    any_ = recall_any_at_k(ranked, relevant, k)
    ndcg = ndcg_any_at_k(ranked, relevant, k)
    assert all_ in (0.0, 1.0) and any_ in (0.0, 1.0)
    assert all_ <= any_  # finding every evidence id implies finding one
    assert 0.0 <= ndcg <= 1.0 + 1e-12
    assert (ndcg > 0) == (any_ == 1.0)


@given(rankings, relevant_sets, ks)
def test_recall_grows_with_k(ranked, relevant, k):
    assert recall_all_at_k(ranked, relevant, k) <= recall_all_at_k(ranked, relevant, k + 1)
    assert recall_any_at_k(ranked, relevant, k) <= recall_any_at_k(ranked, relevant, k + 1)


@given(relevant_sets, ks)
def test_perfect_ranking_scores_one(relevant, k):
    ranked = sorted(relevant)
    assert ndcg_any_at_k(ranked, relevant, k) == pytest.approx(1.0)
    assert recall_all_at_k(ranked, relevant, k) == (1.0 if len(relevant) <= k else 0.0)


@given(st.lists(st.floats(min_value=0, max_value=1e6), min_size=1, max_size=50),
       st.floats(min_value=0, max_value=100))
def test_percentile_lies_within_the_values(values, q):
    p = percentile(values, q)
    assert min(values) <= p <= max(values)
    assert percentile(values, 0) == min(values) and percentile(values, 100) == max(values)


@given(st.lists(st.tuples(st.sampled_from(["1", "2", "10"]), st.sampled_from([0.0, 1.0])),
                min_size=1, max_size=30))
def test_summary_overall_is_the_weighted_mean_of_categories(rows):
    summary = summarise_scores([(cat, {"r@1": v}) for cat, v in rows])
    assert summary["overall"]["n"] == len(rows)
    weighted = sum(c["n"] * c["r@1"] for c in summary["by_category"].values()) / len(rows)
    assert summary["overall"]["r@1"] == pytest.approx(weighted)
    assert list(summary["by_category"]) == sorted(summary["by_category"], key=int)


def test_summary_leaves_out_missing_values():
    summary = summarise_scores([("1", {"acc": 1.0}), ("1", {"acc": None})])
    assert summary["overall"]["acc"] == 1.0 and summary["by_category"]["1"]["n"] == 2

"""Weighted RRF: properties over random rankings, plus the worked example."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.errors import InvalidInput
from graphmem.retrieval.fusion import FusedHit, fuse_rankings

CHANNELS = ("dense", "bm25", "graph", "time")
ids = st.sampled_from([f"m{i}" for i in range(12)])
ranking = st.lists(ids, max_size=10, unique=True)
rankings = st.dictionaries(st.sampled_from(CHANNELS), ranking, min_size=1, max_size=4)
weight = st.floats(min_value=0.0, max_value=5.0, allow_nan=False)


def test_worked_example_scores_and_ranks():
    hits = fuse_rankings({"dense": ["a", "b"], "bm25": ["b", "c"]}, {"dense": 2.0}, k=60)
    assert [h.id for h in hits] == ["b", "a", "c"]
    b = hits[0]
    assert b.score == pytest.approx(2 / 62 + 1 / 61)
    assert b.ranks == {"dense": 2, "bm25": 1}
    assert hits[1] == FusedHit("a", 2 / 61, {"dense": 1})


@given(rankings, st.dictionaries(st.sampled_from(CHANNELS), weight), st.integers(1, 100))
def test_scores_are_the_weighted_reciprocal_rank_sum(rs, ws, k):
    for hit in fuse_rankings(rs, ws, k=k):
        expected = sum(ws.get(c, 1.0) / (k + r) for c, r in hit.ranks.items())
        assert hit.score == pytest.approx(expected)
        for channel, rank in hit.ranks.items():
            assert rs[channel][rank - 1] == hit.id


@given(rankings, ids, st.dictionaries(st.sampled_from(CHANNELS), st.floats(0.1, 5.0)))
def test_a_doc_first_in_every_channel_wins(rs, top, ws):
    rs = {c: [top] + [d for d in r if d != top] for c, r in rs.items()}
    hits = fuse_rankings(rs, ws)
    assert hits[0].id == top
    assert all(hits[0].score > h.score for h in hits[1:])


@given(rankings, ranking, st.dictionaries(st.sampled_from(CHANNELS[:3]), weight))
def test_a_zero_weight_channel_changes_nothing(rs, extra, ws):
    rs = {c: r for c, r in rs.items() if c != "time"}
    before = fuse_rankings(rs, ws)
    after = fuse_rankings({**rs, "time": extra}, {**ws, "time": 0.0})
    assert after == before


@given(ranking.filter(lambda r: len(r) >= 2), st.floats(0.1, 5.0), st.integers(1, 100))
def test_scores_fall_with_rank_in_a_single_channel(r, w, k):
    hits = fuse_rankings({"bm25": r}, {"bm25": w}, k=k)
    assert [h.id for h in hits] == r
    assert all(a.score > b.score for a, b in zip(hits, hits[1:]))


@given(rankings, ids, st.sampled_from(CHANNELS), st.integers(1, 100))
def test_moving_a_doc_up_never_lowers_its_score(rs, doc, channel, k):
    r = [d for d in rs.get(channel, []) if d != doc]
    lower = fuse_rankings({**rs, channel: r + [doc]}, k=k)
    higher = fuse_rankings({**rs, channel: [doc] + r}, k=k)
    score = {h.id: h.score for h in lower}[doc]
    assert {h.id: h.score for h in higher}[doc] >= score


@given(rankings, st.dictionaries(st.sampled_from(CHANNELS), weight), st.randoms())
def test_channel_order_does_not_matter(rs, ws, rnd):
    items = list(rs.items())
    rnd.shuffle(items)
    assert fuse_rankings(dict(items), ws) == fuse_rankings(rs, ws)


@given(rankings, st.integers(0, 15))
def test_limit_truncates_the_full_order(rs, limit):
    full = fuse_rankings(rs)
    assert fuse_rankings(rs, limit=limit) == full[:limit]
    assert len({h.id for h in full}) == len(full)
    assert {h.id for h in full} == {d for r in rs.values() for d in r}


@settings(max_examples=50)
@given(ranking.filter(bool), st.data())
def test_duplicates_in_a_channel_keep_the_first_rank(r, data):
    dup = data.draw(st.sampled_from(r))
    with_dup = r + [dup]
    assert fuse_rankings({"bm25": with_dup}) == fuse_rankings({"bm25": r})


def test_ties_break_by_best_single_rank_then_id():
    # x and y have the same two ranks, so the same score; x holds its best rank in 'dense'
    # and y in 'bm25', both rank 1, so the id decides.
    hits = fuse_rankings({"dense": ["x", "y"], "bm25": ["y", "x"]})
    assert hits[0].score == hits[1].score
    assert [h.id for h in hits] == ["x", "y"]
    hits = fuse_rankings({"dense": ["b"], "bm25": ["a"]})
    assert [h.id for h in hits] == ["a", "b"]


def test_empty_input_gives_no_hits():
    assert fuse_rankings({}) == []
    assert fuse_rankings({"dense": []}) == []


@pytest.mark.parametrize("k", [0, -1, float("nan"), float("inf")])
def test_k_must_be_positive(k):
    with pytest.raises(InvalidInput, match="k must be a positive"):
        fuse_rankings({"dense": ["a"]}, k=k)


@pytest.mark.parametrize("w", [-0.1, float("nan"), float("inf")])
def test_bad_weights_are_rejected(w):
    with pytest.raises(InvalidInput, match="'bm25'"):
        fuse_rankings({"dense": ["a"]}, {"bm25": w})


def test_negative_limit_is_rejected():
    with pytest.raises(InvalidInput, match="limit"):
        fuse_rankings({"dense": ["a"]}, limit=-1)


def test_similarity_term_reorders_by_cosine_and_is_a_no_op_at_weight_zero():
    from graphmem.retrieval.fusion import SIMILARITY_SCALE, with_similarity

    hits = fuse_rankings({"a": ["x", "y"], "b": ["y", "x"]}, {"a": 1.0, "b": 1.0}, k=10)
    assert [h.id for h in hits] == ["x", "y"]  # equal scores: x by id
    sims = {"x": 0.1, "y": 0.9}
    assert with_similarity(hits, 0.0, sims.__getitem__) == hits
    moved = with_similarity(hits, 1.0, lambda ids: {i: sims[i] for i in ids})
    assert [h.id for h in moved] == ["y", "x"]
    assert moved[0].score == pytest.approx(hits[1].score + 0.9 / SIMILARITY_SCALE)

"""The route gate: its features from rankings, when it fires, and the weights it gives."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.errors import ConfigError
from graphmem.retrieval.classify import QueryClass, QueryKind
from graphmem.retrieval.config import (HYBRID, RecallConfig, may_route, weights_for,
                                      weights_for_gate, weights_to_run)
from graphmem.retrieval.route import FEATURES, RouteGate, gate_channels, route_features, routed

COSINE = {"a": 0.8, "b": 0.5, "c": 0.2, "d": 0.1}
RANKINGS = {"dense": ["a", "b", "c"], "bm25": ["c", "d"], "deposit": ["b"],
            "profile": ["b", "a"]}


def cosines(ids):
    return {m: COSINE[m] for m in ids}


def gate(coef: float = -10.0, intercept: float = 5.0, share: float = 1.0) -> RouteGate:
    """Fires where the nearest memory's cosine is below intercept / -coef."""
    return RouteGate(features=("nearest",), mean=(0.0,), scale=(1.0,), coef=(coef,),
                     intercept=intercept, share=share)


def test_features_read_the_rankings_and_cosines():
    got = route_features(tuple(FEATURES), RANKINGS, cosines)
    assert got == {"nearest": 0.8, "nearest_margin": 0.3, "lexical_nearest": 0.2,
                   "lexical_in_dense": 1.0, "dense_in_lexical": 0.0,
                   "deposit_in_lexical": 0.0, "deposit_is_dense": 0.0,
                   "profile_is_deposit": 1.0, "profile_any": 1.0}


def test_features_of_empty_rankings_are_zero():
    assert set(route_features(tuple(FEATURES), {}, cosines).values()) == {0.0}


def test_the_gate_names_the_channels_it_reads():
    assert gate_channels(("nearest", "deposit_is_dense")) == ("dense", "deposit")


@pytest.mark.parametrize("nearest, fires", [(0.2, True), (0.8, False)])
def test_the_gate_fires_below_its_boundary(nearest, fires):
    assert gate().fires({"nearest": nearest}) is fires


def test_a_gate_with_no_share_never_fires():
    assert not gate(share=0.0).fires({"nearest": 0.0})


def test_an_unknown_feature_is_refused():
    with pytest.raises(ValueError, match="unknown route features"):
        RouteGate(features=("wording",), mean=(0.0,), scale=(1.0,), coef=(1.0,),
                  intercept=0.0)


def test_a_config_with_a_misshapen_gate_is_refused():
    with pytest.raises(ConfigError, match="one value per feature"):
        RecallConfig(route={"features": ["nearest"], "mean": [], "scale": [1.0],
                            "coef": [1.0], "intercept": 0.0})


@given(st.floats(0, 1))
def test_routed_weights_lie_between_the_two_tables(share):
    a, b = {"dense": 1.0, "bm25": 0.0}, {"dense": 0.0, "bm25": 1.0, "time": 0.5}
    mixed = routed(a, b, share)
    assert mixed["dense"] == pytest.approx(1 - share) and mixed["bm25"] == pytest.approx(share)
    assert mixed["time"] == pytest.approx(0.5 * share)


def test_a_fired_gate_gives_the_target_kinds_weights():
    config = HYBRID.model_copy(update={"route": gate()})
    factual = QueryClass(QueryKind.FACTUAL, 1.0)
    assert weights_for(config, factual, {"nearest": 0.2}) == weights_for(
        config, QueryClass(QueryKind.PREFERENCE, 1.0))
    assert weights_for(config, factual, {"nearest": 0.8}) == weights_for(config, factual)


def test_a_gate_with_a_table_of_its_own_routes_to_it_not_to_the_kind():
    own = {"profile": 1.0, "deposit": 0.5}
    config = HYBRID.model_copy(update={"route": gate().model_copy(update={"weights": own})})
    factual, preference = QueryClass(QueryKind.FACTUAL, 1.0), QueryClass(QueryKind.PREFERENCE, 1.0)
    routed_weights = weights_for(config, factual, {"nearest": 0.2})
    assert routed_weights == {c: own.get(c, 0.0) for c in config.channels}
    # the target kind's own questions keep the kind's table
    assert weights_for(config, preference) == weights_for(HYBRID, preference)
    running = {c for c, w in weights_to_run(config, factual).items() if w > 0}
    assert {"profile", "deposit"} <= running


def test_a_gate_table_with_an_unknown_channel_or_a_negative_weight_is_refused():
    with pytest.raises(ConfigError, match="route.weights"):
        RecallConfig(route=gate().model_copy(update={"weights": {"psychic": 1.0}}))
    with pytest.raises(ConfigError, match="route.weights.*finite and >= 0"):
        RecallConfig(route=gate().model_copy(update={"weights": {"dense": -1.0}}))


def test_a_question_of_the_target_kind_is_not_routed():
    config = HYBRID.model_copy(update={"route": gate()})
    assert not may_route(config, QueryClass(QueryKind.PREFERENCE, 1.0))
    assert not may_route(config.model_copy(update={"classify": False}),
                         QueryClass(QueryKind.FACTUAL, 1.0))
    assert may_route(config, QueryClass(QueryKind.FACTUAL, 1.0))


def test_every_channel_a_route_may_need_runs():
    config = HYBRID.model_copy(update={"route": gate()})
    factual = QueryClass(QueryKind.FACTUAL, 1.0)
    running = {c for c, w in weights_to_run(config, factual).items() if w > 0}
    needed = {c for c, w in HYBRID.kind_weights[QueryKind.PREFERENCE].items() if w > 0}
    assert needed | {"dense"} | {c for c, w in weights_for(config, factual).items() if w > 0} \
        <= running
    unrouted = HYBRID.model_copy(update={"route": None})
    assert weights_to_run(unrouted, factual) == weights_for(unrouted, factual)


def test_the_gate_runs_its_channels_before_the_route_is_known():
    config = HYBRID.model_copy(update={"route": RouteGate(
        features=("deposit_is_dense",), mean=(0.0,), scale=(1.0,), coef=(1.0,),
        intercept=0.0)})
    temporal = QueryClass(QueryKind.TEMPORAL, 1.0)
    first = weights_for_gate(config, temporal)
    assert first["deposit"] == first["dense"] == 1.0
    assert {c: w for c, w in first.items() if c not in ("deposit", "dense")} == {
        c: w for c, w in weights_for(config, temporal).items() if c not in ("deposit", "dense")}


@pytest.mark.parametrize("nearest, fires", [(0.2, True), (0.25, True), (0.3, False), (0.45, False),
                                           (0.9, False)])
def test_the_shipped_gate_routes_a_question_no_memory_is_near(nearest, fires):
    assert HYBRID.route is not None and HYBRID.route.fires({"nearest": nearest}) is fires
    assert HYBRID.route.target == QueryKind.PREFERENCE and 0 < HYBRID.route.share <= 1

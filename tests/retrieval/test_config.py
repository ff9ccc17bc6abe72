"""Recall settings: presets, validation, and the weights chosen per query."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.errors import ConfigError
from graphmem.retrieval.classify import QueryClass, QueryKind, classify_query
from graphmem.retrieval.config import (
    ASKER_PROFILE,
    BM25_ONLY,
    CHANNELS,
    RRF_K,
    DENSE_ONLY,
    HYBRID,
    HYBRID_RRF,
    PRESETS,
    PROFILE,
    RecallConfig,
    preset,
    weights_for,
)

classes = st.builds(
    QueryClass,
    st.sampled_from(list(QueryKind)),
    st.floats(0.0, 1.0),
    st.frozensets(st.sampled_from(list(QueryKind)), max_size=3),
    about_asker=st.booleans(),
)


def test_hybrid_defaults():
    assert HYBRID.channels == CHANNELS
    assert (HYBRID.rrf_k, HYBRID.depth) == (RRF_K, 50)
    assert HYBRID.classify and not HYBRID.expand_affiliated


def test_kinds_weigh_channels_differently_and_the_graph_channel_ships_off():
    temporal = weights_for(HYBRID, classify_query("When did the shop open?"))
    factual = weights_for(HYBRID, classify_query("What colour is the shop door?"))
    assert temporal["time"] > 0 and temporal["speaker"] > factual["speaker"] == 0
    preference = weights_for(HYBRID, classify_query("What kind of music does Ana enjoy?"))
    # a stated taste is found by the whole deposit it was said in and by the profile
    assert preference["deposit"] > factual["deposit"]
    assert preference["profile"] > factual["profile"]
    assert all(table["graph"] == 0 for table in HYBRID.kind_weights.values())


def test_secondary_kind_mixes_in():
    anchored = QueryClass(QueryKind.FACTUAL, 0.5, frozenset({QueryKind.TEMPORAL}))
    plain = QueryClass(QueryKind.FACTUAL, 0.5)
    assert 0 == weights_for(HYBRID, plain)["speaker"] < weights_for(HYBRID, anchored)["speaker"]


def test_single_channel_presets_ignore_the_class():
    when = classify_query("When did it rain?")
    assert weights_for(DENSE_ONLY, when) == {"dense": 1.0}
    assert weights_for(BM25_ONLY, when) == {"bm25": 1.0}
    assert weights_for(HYBRID_RRF, when) == {"dense": 1.0, "bm25": 1.0}


def test_low_confidence_falls_back_to_base_weights():
    config = preset("HYBRID", min_confidence=0.9)
    unsure = QueryClass(QueryKind.TEMPORAL, 0.4)
    assert weights_for(config, unsure) == config.weights
    assert weights_for(config, None) == config.weights


@given(st.sampled_from(sorted(PRESETS)), classes)
def test_weights_cover_enabled_channels_and_are_non_negative(name, query_class):
    config = PRESETS[name]
    weights = weights_for(config, query_class)
    assert tuple(weights) == config.channels
    assert all(w >= 0 for w in weights.values())
    assert any(w > 0 for w in weights.values())


def test_presets_are_frozen():
    with pytest.raises(Exception, match="frozen"):
        HYBRID.rrf_k = 5  # type: ignore[misc]


def test_preset_lookup_and_overrides():
    assert preset("dense_only") is DENSE_ONLY
    tuned = preset("HYBRID", rrf_k=30, channel_depth={"graph": 20})
    assert tuned.rrf_k == 30 and tuned.depth_for("graph") == 20 and tuned.depth_for("dense") == 50
    assert HYBRID.rrf_k == RRF_K
    with pytest.raises(ConfigError, match="unknown recall preset 'nope'"):
        preset("nope")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"rrf_k": 0}, "rrf_k"),
        ({"k": -1}, "k"),
        ({"weights": {"dense": -1.0}}, "weights must be finite and >= 0"),
        ({"weights": {"dense": float("nan")}}, "weights must be finite"),
        ({"channels": ()}, "at least one channel"),
        ({"channels": ("dense", "dense")}, "listed twice"),
        ({"channels": ("dense", "sparse")}, "channels"),
        ({"kind_weights": {}}, "no weights for query kinds"),
        ({"channel_depth": {"bm25": 0}}, "depths must be > 0"),
        ({"channels": ("speaker",)}, "has weight 0"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_invalid_settings_raise_config_error(fields, message):
    with pytest.raises(ConfigError, match=message):
        RecallConfig(**fields)


def test_an_unknown_channel_is_refused_with_the_registered_names():
    with pytest.raises(ConfigError, match="unknown channel.*registered"):
        RecallConfig(channels=("dense", "telepathy"))
    with pytest.raises(ConfigError, match="unknown channel"):
        RecallConfig(weights={"dense": 1.0, "telepathy": 1.0})


def test_every_registered_channel_is_a_default_channel_in_its_order():
    from graphmem.retrieval.channels import CHANNELS as REGISTERED

    assert HYBRID.channels == tuple(REGISTERED)
    assert [c.order for c in REGISTERED.values()] == sorted(c.order for c in REGISTERED.values())


def test_similarity_is_a_weight_not_a_channel():
    config = RecallConfig(weights={"dense": 1.0, "similarity": 0.5},
                          kind_weights={k: {**t, "similarity": 0.2}
                                        for k, t in HYBRID.kind_weights.items()})
    assert weights_for(config)["similarity"] == 0.5
    assert "similarity" not in weights_for(HYBRID)  # off: no term
    with pytest.raises(ConfigError, match="unknown channel"):
        RecallConfig(channels=("dense", "similarity"))


def test_a_question_in_the_first_person_gives_profile_weight_to_the_asker_channel():
    """ "Which mouse should I buy?" reads the asker's rules as well as their tastes; "Which
    mouse does Ana like?" keeps the profile. No weight is lost or made."""
    mine = classify_query("Which mouse should I buy for my desk?")
    hers = classify_query("Which mouse does Ana like for her desk?")
    assert mine.about_asker and not hers.about_asker and mine.kind == hers.kind
    moved, kept = weights_for(HYBRID, mine), weights_for(HYBRID, hers)
    assert moved[PROFILE] == 0 and moved[ASKER_PROFILE] == kept[PROFILE] > 0
    assert kept[ASKER_PROFILE] == 0
    assert {c: w for c, w in moved.items() if c not in (PROFILE, ASKER_PROFILE)} == \
        {c: w for c, w in kept.items() if c not in (PROFILE, ASKER_PROFILE)}


def test_no_move_without_the_asker_channel():
    mine = classify_query("Which mouse should I buy?")
    off = HYBRID.model_copy(update={"asker_profile": None})
    assert weights_for(off, mine)[PROFILE] > 0 and weights_for(off, mine)[ASKER_PROFILE] == 0
    # the channel does not run: profile keeps its weight rather than lose it
    without = HYBRID.model_copy(update={"channels": tuple(c for c in CHANNELS if c != ASKER_PROFILE)})
    assert weights_for(without, mine)[PROFILE] > 0
    # the classifier off: the question is not read
    assert weights_for(HYBRID.model_copy(update={"classify": False}), None)[ASKER_PROFILE] == 0


def test_an_unknown_asker_channel_is_refused():
    with pytest.raises(ConfigError, match="asker_profile"):
        RecallConfig(asker_profile="profiles")


@given(classes)
def test_the_move_keeps_the_total_weight(query_class):
    moved = weights_for(HYBRID, query_class)
    kept = weights_for(HYBRID.model_copy(update={"asker_profile": None}), query_class)
    assert sum(moved.values()) == pytest.approx(sum(kept.values()))
    assert (moved[PROFILE] == 0) or not query_class.about_asker

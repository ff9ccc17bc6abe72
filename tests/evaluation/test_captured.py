"""A captured question replays to exactly what live recall returns, under any config."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.evaluation.captured import capture_question, replay, route_features_of
from graphmem.evaluation.knobs import ALL_CUES, Patch, Setting, apply, knobs_of
from graphmem.retrieval.classify import class_from_cues, classify_query, cue_hits, speaks_of_asker
from graphmem.retrieval.config import BM25_ONLY, DENSE_ONLY, HYBRID, weights_for
from graphmem.retrieval.route import FEATURES, RouteGate
from tests.scenes import two_people

NS = "cap"
SCENE = [
    ("ana", "I went swimming with my kids at the lake last Saturday. The water was cold.",
     "2023-05-08"),
    ("ben", "I adopted a puppy named Rex. He loves the park.", "2023-05-09"),
    ("ana", "My favourite book is Dune. I read it every summer.", "2023-06-01"),
    ("ben", "I moved to Toronto for a new job at a bakery.", "2023-06-15"),
    ("ana", "I signed up for a pottery class on Tuesdays.", "2023-07-02"),
    ("ben", "Rex and I went camping in Algonquin park.", "2023-07-20"),
    ("ana", "I prefer tea to coffee, and I avoid anything with peanuts.", "2023-08-01"),
    # two claims that replace one another: recall's last step orders them by when each held
    ("ben", "Ben lives in Berlin.", "2023-03-01"),
    ("ben", "Ben lives in Munich.", "2024-05-01"),
]
QUESTIONS = ["What activities does Ana do?", "When did Ben move to Toronto?",
             "Where does Ben live?", "Where did Ben live in 2023?",
             "What is Ana's favourite book?", "Who is Rex?",
             "What do Ana and Ben both enjoy outdoors?", "Can you suggest a snack for me?"]


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    graph = two_people(tmp_path_factory.mktemp("captured") / "data", NS, SCENE)
    yield graph
    graph.close()


def _configs():
    base = Setting(HYBRID)
    graph_on = apply(base, [Patch("weight", f"{k}.graph", 1.0)
                            for k in ("temporal", "identity", "preference", "factual",
                                      "multi_hop")]).config
    said_on = apply(base, [Patch("weight", f"{k}.said", 1.0)
                           for k in ("temporal", "identity", "preference", "factual",
                                     "multi_hop")]).config
    # each channel added for list questions and long distractors, alone beside the
    # shipped ones (kinds reads the agents a question names: with speaker and said at 0
    # the names must still be looked up)
    added = [apply(base, [Patch("weight", f"{k}.{channel}", 1.0)
                          for k in ("temporal", "identity", "preference", "factual",
                                    "multi_hop")]).config
             for channel in ("hop", "hop_dense", "kinds", "deposit", "spread")]
    # all of them at once: the second-hop channels read the first rankings the pipeline
    # already made (dense and BM25, where the kind weighs them) instead of searching again
    every = apply(base, [Patch("weight", f"{k}.{channel}", 1.0)
                         for k in ("temporal", "identity", "preference", "factual", "multi_hop")
                         for channel in ("hop", "hop_dense", "kinds", "deposit", "spread")]
                  ).config
    # the cosine as a term of the fused score, beside the ranks
    similar = HYBRID.model_copy(update={
        "weights": {**HYBRID.weights, "similarity": 2.0},
        "kind_weights": {k: {**t, "similarity": 1.5} for k, t in HYBRID.kind_weights.items()}})
    kinds_alone = HYBRID.model_copy(update={
        "classify": False, "weights": {"kinds": 1.0, "dense": 0.1}})
    return [HYBRID, DENSE_ONLY, BM25_ONLY, graph_on, said_on, *added, every, similar, kinds_alone,
            HYBRID.model_copy(update={"affiliated_weight": 2.0, "affiliated_cap": 1}),
            HYBRID.model_copy(update={"classify": False}),
            HYBRID.model_copy(update={"asker_profile": None})]


@pytest.mark.parametrize("question", QUESTIONS)
def test_replay_equals_live_recall(scene, question):
    captured = capture_question(scene, NS, "ana", question)
    for config in _configs():
        live = [h.memory_id for h in scene.recall("ana", question, k=5, ns=NS, config=config)]
        assert replay(captured, config, k=5) == live, config


@given(st.text(max_size=80))
def test_cue_hits_give_the_classifiers_answer(text):
    assert class_from_cues(cue_hits(text), about_asker=speaks_of_asker(text)) == classify_query(text)


def test_every_knob_has_an_off_setting_that_differs_from_its_options():
    base = Setting(HYBRID)
    for knob in knobs_of(base):
        off = apply(base, [knob.off]).key()
        assert all(apply(base, [p]).key() != off for p in knob.options), knob.name


def test_removing_a_cue_removes_only_that_cue():
    setting = apply(Setting(HYBRID), [Patch("cue", "both", False)])
    assert setting.cues == ALL_CUES - {"both"} and setting.config == HYBRID


def test_a_replaced_claim_is_captured_with_its_replacement(scene):
    captured = capture_question(scene, NS, "ana", "Where does Ben live?")
    replaced = [m for m, claim in captured.validity.items() if claim.superseded_by]
    assert replaced and all(captured.validity[m].superseded_by in captured.validity
                            for m in replaced)


def _gate_at(nearest: float, share: float) -> RouteGate:
    """A gate over every route feature that fires where the nearest memory's cosine is
    below ``nearest`` (the other features read, weighted 0)."""
    names = tuple(FEATURES)
    return RouteGate(features=names, mean=(0.0,) * len(names), scale=(1.0,) * len(names),
                     coef=tuple(-100.0 if f == "nearest" else 0.0 for f in names),
                     intercept=100.0 * nearest, share=share)


def test_a_routed_question_replays_to_live_recall(scene):
    captured = {q: capture_question(scene, NS, "ana", q) for q in QUESTIONS}
    probe = HYBRID.model_copy(update={"route": _gate_at(0.0, 1.0)})
    nearest = sorted(f["nearest"] for c in captured.values()
                     if (f := route_features_of(c, probe, c.query_class())) is not None)
    middle = (nearest[len(nearest) // 2 - 1] + nearest[len(nearest) // 2]) / 2
    for share in (0.5, 1.0):
        config = HYBRID.model_copy(update={"route": _gate_at(middle, share)})
        fired = []
        for question, c in captured.items():
            features = route_features_of(c, config, c.query_class())
            routed = weights_for(config, c.query_class(), features)
            fired.append(routed != weights_for(config, c.query_class()))
            live = [h.memory_id for h in scene.recall("ana", question, k=5, ns=NS, config=config)]
            assert replay(c, config, k=5) == live, (question, share)
        assert any(fired) and not all(fired)


def test_conflicting_hits_replay_in_credible_order(tmp_path):
    """Live recall's last step puts conflicting hits in credible order (trust.bundle): two
    claims about one time, the one two agents asserted more credible than the one a
    third did, which the question's words rank first; the replay follows it."""
    from dataclasses import replace as replaced

    from graphmem import MemoryGraph

    at = "2026-05-01T10:00"  # one time: a dispute, not a later claim superseding
    with MemoryGraph.open(data_dir=tmp_path / "data") as graph:
        graph.remember("ana", "The team meeting is on Monday.", witnesses=["dee"], at=at)
        graph.remember("ben", "The team meeting is on Monday.", witnesses=["dee"], at=at)
        tuesday = graph.remember("cy", "The team meeting is on Tuesday.", witnesses=["dee"],
                                 at=at)
        assert tuesday.atoms[0].contradicts
        question = "Is the team meeting on Tuesday?"
        captured = capture_question(graph, "default", "dee", question)
        hits = graph.recall("dee", question, k=20, config=HYBRID)
    live = [h.memory_id for h in hits]
    assert hits[0].text == "The team meeting is on Monday." and hits[0].conflicts
    assert replay(captured, HYBRID, k=20) == live
    # the step is exercised: without it the replay differs
    assert replay(replaced(captured, credibility={}), HYBRID, k=20) != live

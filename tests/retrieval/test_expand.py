"""The expand channel on a real store: a question is searched by its topic words and
their nearest words of the namespace's vocabulary, never by the agents' names, among the
memories the asker owns."""

from __future__ import annotations

import pytest

from graphmem.retrieval.config import HYBRID
from tests.scenes import channel_alone, two_people

NS = "expand"
SCENE = [
    ("ana", "I played tennis with my brother on Sunday.", "2023-05-01"),
    ("ben", "Rowing on the lake at dawn is the best part of my week.", "2023-05-02"),
    ("ana", "My tax return is due at the end of the month.", "2023-05-03"),
    ("ben", "The landlord raised the rent again.", "2023-05-04"),
    ("ana", "We bought a new fridge for the kitchen.", "2023-05-05"),
    ("ben", "I joined a football team at work.", "2023-05-06"),
    ("ana", "The dentist appointment moved to Thursday.", "2023-05-07"),
    ("ben", "Our flight to Lisbon was delayed by two hours.", "2023-05-08"),
]
SPORTS = ("tennis", "Rowing", "football")  # what the store keeps of each sports line


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    graph = two_people(tmp_path_factory.mktemp("expand") / "data", NS, SCENE)
    yield graph
    graph.close()


def _texts(graph, question, asker="ana", k=3, channel="expand"):
    return [h.text for h in graph.recall(asker, question, k=k, ns=NS, config=channel_alone(channel))]


def test_the_sports_question_finds_the_sports_it_never_names(scene):
    # no memory says "sports" or "enjoyed": the words channel finds nothing
    question = "Which sports are enjoyed?"
    assert _texts(scene, question, channel="words") == []
    found = _texts(scene, question)
    assert len(found) == 3
    assert sum(any(word in f for word in SPORTS) for f in found) >= 2, found


def test_the_agents_names_are_neither_searched_nor_expanded(scene):
    assert _texts(scene, "Which sports does Ana enjoy?", k=8) == \
        _texts(scene, "Which sports does Ben enjoy?", k=8)
    assert _texts(scene, "Ana Ben", k=8) == []  # nothing but names: no ranking


def test_only_the_askers_memories_are_ranked(scene):
    scene.register_agent("cleo", kind="human", name="Cleo", ns=NS)
    scene.remember("cleo", "I go skiing and snowboarding every winter.", ns=NS)
    assert not any("skiing" in t for t in _texts(scene, "What winter sports are there?", k=8))
    assert any("skiing" in t for t in _texts(scene, "What winter sports are there?",
                                               asker="cleo", k=8))


def test_a_new_memorys_words_join_the_vocabulary_at_the_next_question(scene):
    index = scene._views.text_index(NS)
    scene.remember("ana", "I started fencing lessons downtown.", witnesses=["ben"], ns=NS)
    assert "fencing" in index.vocabulary and "fencing" in index.vocabulary.waiting
    found = _texts(scene, "Which sports does Ana enjoy?", k=8)
    assert "fencing" in index.vocabulary.words and not index.vocabulary.waiting
    assert any("fencing" in t for t in found)


def test_the_fused_recall_runs_it_with_the_others(scene):
    weighted = HYBRID.model_copy(update={
        "kind_weights": {k: {**w, "expand": 0.3} for k, w in HYBRID.kind_weights.items()},
        "weights": {**HYBRID.weights, "expand": 0.3}})
    hits = scene.recall("ben", "Which sports does Ben enjoy?", k=5, ns=NS, config=weighted)
    assert any("expand" in h.channels for h in hits)

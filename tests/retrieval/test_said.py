"""The said channel: the agents a question names pick the memories, its other words rank
them; and the question's words without those names."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.retrieval.config import HYBRID
from graphmem.retrieval.query import without_names
from tests.scenes import two_people

NS = "said"
SCENE = [
    ("ana", "I went swimming with my kids at the lake last Saturday.", "2023-05-08"),
    ("ben", "Ana, I went swimming too, and camping with Rex.", "2023-05-09"),
    ("ana", "I signed up for a pottery class on Tuesdays.", "2023-06-01"),
    ("ana", "My kids and I went camping in the mountains.", "2023-07-02"),
    ("ben", "I moved to Toronto for a new job at a bakery.", "2023-07-20"),
]
SAID_ONLY = HYBRID.model_copy(update={
    "classify": False, "weights": {"said": 1.0},
    "kind_weights": {k: {"said": 1.0} for k in HYBRID.kind_weights}})


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    graph = two_people(tmp_path_factory.mktemp("said") / "data", NS, SCENE)
    yield graph
    graph.close()


def _texts(graph, question, asker="ben"):
    return [h.text for h in graph.recall(asker, question, k=5, ns=NS, config=SAID_ONLY)]


def test_only_what_the_named_agent_said_ranks_by_the_other_words(scene):
    texts = _texts(scene, "Where did Ana go camping?")
    assert texts, "Ana said two things about camping or kids"
    assert "camping" in texts[0]
    assert all("Rex" not in t and "Toronto" not in t for t in texts)  # Ben's words


def test_a_question_naming_no_agent_gets_nothing_from_it(scene):
    assert _texts(scene, "Where did someone go camping?") == []


def test_a_question_that_is_only_a_name_gets_nothing_from_it(scene):
    assert _texts(scene, "Ana?") == []


def test_names_and_their_possessives_are_removed():
    names = {"m1": "Melanie", "c1": "Caroline"}
    assert without_names("What are Melanie's kids like, melanie?", names) == \
        "What are kids like, ?"
    assert without_names("What did Caroline and Mel do?", names) == "What did and Mel do?"


@given(st.text(alphabet="abc XYZ'?", max_size=40))
def test_no_named_word_is_left(text):
    out = without_names(text, {"ab": "Xyz"})
    assert not re.search(r"(?<!\w)(ab|xyz)(?!\w)", out, re.IGNORECASE)

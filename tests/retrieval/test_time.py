"""The time channel: memories of one time in the order they were told."""

from __future__ import annotations

import pytest

from tests.scenes import channel_alone, two_people

NS = "time"
# one session: every line has the same time, as a conversation's turns do when only the
# session is dated
DAY = "2023-05-08"
LINES = [
    "I fixed the fence in the back garden.",
    "I baked sourdough bread for the neighbours.",
    "I repainted the kitchen door dark green.",
    "I took the dog to the vet for her shots.",
    "I called my sister in Lisbon about the wedding.",
    "I planted tomatoes along the south wall.",
]


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    graph = two_people(tmp_path_factory.mktemp("time") / "data", NS,
                       [("ana", line, DAY) for line in LINES])
    yield graph
    graph.close()


#: a word of each line, in the order told (the stored text names the speaker for "I")
TOLD = ["fence", "sourdough", "kitchen", "vet", "Lisbon", "tomatoes"]


@pytest.mark.parametrize("question, order", [
    ("What happened first?", TOLD),
    ("What happened last?", TOLD[::-1]),
])
def test_memories_of_one_time_come_in_the_order_they_were_told(scene, question, order):
    # memories of one time used to come in the order of their ids, which are random: six
    # lines came out in the order told once in 720 ingestions
    hits = scene.recall("ben", question, k=len(LINES), ns=NS, config=channel_alone("time"))
    assert [next(w for w in TOLD if w in h.text) for h in hits] == order

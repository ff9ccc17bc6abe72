"""A view read afresh from the store (a new process, a run resumed from a checkpoint)
must rank as the view that was kept in step with every write: the same deposit links are
written after it, and the deposit channel lists the same memories."""

from __future__ import annotations

import pytest

from graphmem import MemoryGraph
from graphmem.view import NamespaceView
from tests.scenes import channel_alone

# one speaker in one room at one moment: every deposit is a candidate for the "previous
# memory of the episode" that a new deposit is linked to
LINES = [
    "The guard saw a ghost on the wall. It wore armour.",
    "The king drinks late into the night. The cannon sound for every cup.",
    "The prince is melancholy. He wears black every day.",
    "The players arrive tomorrow. They will perform a murder.",
    "The queen married in haste. The court said nothing.",
    "Polonius hides behind the arras. He listens to everything.",
]
AT = "2023-05-01T20:00:00"


def _deposit(graph, ns, lines):
    for line in lines:
        graph.remember("horatio", line, witnesses=["marcellus"], at=AT, place="wall", ns=ns)


def _links(graph, ns):
    view = graph._views.synced(ns)
    return sorted((view.records[m].text, tuple(sorted(view.records[x].text for x in r.affiliated)))
                  for m, r in view.records.items())


CUTS = {"whole": None, "cut1": 1, "cut3": 3, "cut4": 4}


@pytest.fixture(scope="module")
def graphs(tmp_path_factory, embedder):
    graph = MemoryGraph.open(data_dir=tmp_path_factory.mktemp("resume") / "data", embedder=embedder)
    for ns, cut in CUTS.items():
        for agent in ("horatio", "marcellus"):
            graph.register_agent(agent, kind="human", name=agent.capitalize(), ns=ns)
        _deposit(graph, ns, LINES[:cut])
        if cut is not None:
            graph._views.forget_namespace(ns)  # as a new process: the view is read afresh
            _deposit(graph, ns, LINES[cut:])
    yield graph
    graph.close()


def _row(mid, t, recorded_at, pos, seq):
    return {"id": mid, "text": mid, "seq": seq, "embedding": [1.0, 0.0], "t": t,
            "place": "wall", "recorded_at": recorded_at, "pos": pos,
            "owners": ["horatio"], "vias": ["said"]}


def test_the_latest_memory_at_a_place_does_not_depend_on_the_order_it_was_read():
    # two memories of one moment: the second written is the latest, whether the view
    # read it last (kept in step) or first (read afresh after the first was touched)
    first, second = _row("m-a", 5, 100, 1, 1), _row("m-b", 5, 200, 0, 2)
    latest = []
    for order in ([first, second], [second, {**first, "seq": 3}]):
        view = NamespaceView("ns")
        for row in order:
            view.upsert(row)
        latest.append(view.latest_at_place("horatio", "wall"))
    assert latest == [(5, "m-b"), (5, "m-b")]


def test_a_fresh_view_links_new_deposits_as_the_live_view_does(graphs):
    # memory ids are random: equal links by text mean no choice hung on an id's order
    whole = _links(graphs, "whole")
    assert [ns for ns in CUTS if _links(graphs, ns) != whole] == []


@pytest.mark.parametrize("question", ["What did the guard see?", "Who is listening?",
                                      "What happens at night?"])
def test_a_fresh_view_gives_the_same_deposit_ranking(graphs, question):
    ranked = {ns: [h.text for h in graphs.recall("marcellus", question, k=10, ns=ns,
                                                 config=channel_alone("deposit"))]
              for ns in CUTS}
    assert ranked["whole"] and all(r == ranked["whole"] for r in ranked.values())

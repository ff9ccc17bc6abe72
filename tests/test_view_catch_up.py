"""A view caught up with ``changed_since`` holds what a view read whole from the store
holds, although a catch-up sends a memory's embedding only when it changed."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.view import NamespaceView

NS = "catch-up"
FACTS = ["Ana lives in Berlin.", "Ben repaired the blue bicycle.", "Chloe sold the old map.",
         "Dmitri found the spare key at the station.", "Esra painted the bakery door."]
ACTS = st.lists(st.tuples(st.sampled_from(["pin", "forget", "unforget", "correct", "reembed",
                                           "remember", "maintain"]),
                          st.integers(0, 4)), min_size=1, max_size=5)


def _fresh(graph) -> NamespaceView:
    view = NamespaceView(NS)
    state = graph._views.state(NS)
    view.sync(graph._store, graph._queries, state.version)
    return view


def _same(kept: NamespaceView, fresh: NamespaceView) -> None:
    assert set(kept.records) == set(fresh.records)
    for mid, record in fresh.records.items():
        mine = kept.records[mid]
        assert (mine.text, mine.forgotten, mine.pinned, mine.superseded_by) == \
            (record.text, record.forgotten, record.pinned, record.superseded_by), mid
        np.testing.assert_array_equal(kept.vector(mid), fresh.vector(mid), err_msg=mid)


def _act(graph, act: str, i: int) -> None:
    ids = sorted(graph._views.synced(NS).records)
    target = ids[i % len(ids)]
    if act == "pin":
        graph.pin(target, by="person", ns=NS)
    elif act in ("forget", "unforget"):
        getattr(graph, act)(target, by="person", ns=NS)
    elif act == "correct":
        if not graph._views.synced(NS).records[target].superseded_by:
            graph.correct(target, f"{FACTS[i]} (corrected)", by="person", ns=NS)
    elif act == "reembed":  # another vector for one memory, as a model change writes it
        vector = np.roll(graph._views.synced(NS).vector(target), i + 1)
        graph._curator.run(NS, "memory/set_embeddings",
                           {"rows": [{"id": target, "embedding": [float(x) for x in vector]}]},
                           sync=False)
    elif act == "maintain":  # prunes (and may promote) many memories in one write each
        graph.set_decay(ns=NS, threshold=0.2 * i)
        graph.maintain(ns=NS)
    else:
        graph.remember("ana", f"Memory number {i} is about the harbour.", ns=NS)


def test_a_pass_that_changes_no_vector_sends_none(graph):
    for fact in FACTS:
        graph.remember("ana", fact, ns=NS)
    before = graph._views.synced(NS).version
    for mid in sorted(graph._views.synced(NS).records):
        graph.pin(mid, by="person", ns=NS)
    page = {"page": 100, "after_seq": -1, "after_pos": -1, "after_id": ""}
    rows = graph.query("memory/changed_since", {"ns": NS, "since": before, "vsince": before,
                                                **page})
    assert len(rows) == len(FACTS)
    assert all(row["embedding"] is None for row in rows)
    everything = graph.query("memory/changed_since", {"ns": NS, "since": 0, "vsince": 0,
                                                      **page})
    assert all(row["embedding"] is not None for row in everything)


def test_maintenance_applies_its_prunes_to_the_view_it_holds(graph):
    for fact in FACTS:
        graph.remember("ana", fact, ns=NS)
    graph.pin(sorted(graph._views.synced(NS).records)[0], by="person", ns=NS)
    kept = graph._views.synced(NS)
    graph.set_decay(ns=NS, threshold=0.99)
    report = graph.maintain(ns=NS)
    assert report["pruned"], "a threshold of 0.99 prunes every unpinned memory"
    kept = graph._views.synced(NS)
    assert {m for m, r in kept.records.items() if r.forgotten} >= set(report["pruned"]) - {
        m for m, r in kept.records.items() if r.pinned}
    _same(kept, _fresh(graph))


def test_a_new_vector_reaches_a_view_that_holds_the_old_one(graph):
    for fact in FACTS:
        graph.remember("ana", fact, ns=NS)
    kept = graph._views.synced(NS)
    target = sorted(kept.records)[0]
    old = kept.vector(target).copy()
    _act(graph, "reembed", 0)
    kept = graph._views.synced(NS)
    assert not np.array_equal(kept.vector(target), old)
    _same(kept, _fresh(graph))


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(acts=ACTS)
def test_a_caught_up_view_equals_a_view_read_whole(graph, acts):
    graph.cypher("MATCH (n {ns: $ns}) DETACH DELETE n", {"ns": NS}, write=True)
    graph._views.forget_namespace(NS)
    for fact in FACTS:
        graph.remember("ana", fact, ns=NS)
    kept = graph._views.synced(NS)
    for act, i in acts:
        _act(graph, act, i)
        kept = graph._views.synced(NS)
        _same(kept, _fresh(graph))


def test_a_view_read_in_small_pages_equals_one_read_whole(graph, monkeypatch):
    import graphmem.view as view_module

    # memories of one write share its seq (the pages must not split them): the later
    # facts merge into two of these, and the other three keep the first write's seq
    graph.remember("ana", "Ana lives in Berlin and Ben works at the bakery. Chloe sold the "
                   "old map. Dmitri found the spare key. Farid planted a lemon tree. "
                   "Greta mended the garden fence.", ns=NS)
    for fact in FACTS:
        graph.remember("ben", fact, ns=NS)
    whole = _fresh(graph)
    monkeypatch.setattr(view_module, "SYNC_PAGE", 2)
    paged = _fresh(graph)
    assert len(whole) >= 5 and len({r.seq for r in whole.records.values()}) < len(whole)
    assert paged._ids == whole._ids  # the same rows, numbered alike
    _same(paged, whole)

"""Intelligent Decay: S = αR + βE + γU on every hit and in Cypher, and maintenance that
consolidates related low-utility memories, prunes the rest under the threshold and never
touches pinned ones."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem import InvalidInput
from graphmem.lifecycle.decay import DAY_MS, recency
from graphmem.view import MemoryRecord


@given(st.floats(0.5, 400), st.floats(0, 2000))
def test_recency_halves_every_half_life_and_stays_in_range(half_life, age_days):
    record = MemoryRecord(id="m", row=0, text="x", seq=1, recorded_at=0)
    r = recency(record, int(age_days * DAY_MS), half_life)
    assert 0.0 <= r <= 1.0
    assert recency(record, int(half_life * DAY_MS), half_life) == pytest.approx(0.5, abs=1e-6)


def test_hits_carry_their_utility_and_the_task_raises_relevance(graph):
    graph.remember("ana", "The harbour crane needs a new cable.")
    graph.remember("ana", "The bakery sells rye bread on Sundays.")
    graph.set_task("ana", "Repair the harbour crane before the ships arrive.")
    hits = {h.text: h.utility for h in graph.recall("ana", "What needs doing?", k=5)}
    crane, bread = hits["The harbour crane needs a new cable."], \
        hits["The bakery sells rye bread on Sundays."]
    assert set(crane) == {"S", "R", "E", "U"} and crane["U"] == 0.5
    assert crane["E"] > bread["E"] and crane["S"] > bread["S"]


def test_only_the_askers_own_task_raises_relevance_and_it_costs_no_round_trip(
        graph, monkeypatch):
    """The asker's task is read with the namespace's state, in a recall's first round
    trip: its reads are that one and the trust profiles of its hits' asserters, which
    the next recall keeps (no profile changed); and at most once the agents' names (when
    a channel that reads the agents a question names may run), which the writer keeps."""
    graph.remember("ana", "The harbour crane needs a new cable.", witnesses=["ben"])
    graph.set_task("ben", "Repair the harbour crane before the ships arrive.")
    reads: list[str] = []
    real = graph._store.read
    monkeypatch.setattr(graph._store, "read",
                        lambda query, *a, **k: reads.append(query) or real(query, *a, **k))
    asked_by = {a: graph.recall(a, "What needs doing?", k=1)[0].utility for a in ("ana", "ben")}
    assert asked_by["ben"]["E"] > asked_by["ana"]["E"]
    names = graph._queries["memory/agent_names"]
    assert reads.count(names) <= 1
    assert [q for q in reads if q != names] == [
        graph._queries["memory/recall_state"], graph._queries["trust/trust_of"],
        graph._queries["memory/recall_state"]]


def test_maintenance_consolidates_prunes_and_keeps_the_pinned(graph):
    pinned = graph.remember("ana", "The vault code changed in March.").memory_ids[0]
    graph.pin(pinned, by="ines")
    lone = graph.remember("ana", "A gull stole a sandwich on the pier.").memory_ids[0]
    pair = graph.remember("ana", "The ferry engine failed on Monday. The ferry engine was "
                                 "broken again on Tuesday.").memory_ids
    assert len(pair) == 2
    graph.set_decay(threshold=0.45, cluster_similarity=0.5)
    report = graph.maintain(now="2031-01-01")  # years later: recency is gone
    assert report["scored"] == 4 and report["pinned_kept"] == 1
    assert report["pruned"] == [lone]
    assert [sorted(c["sources"]) for c in report["consolidated"]] == [sorted(pair)]
    fact = report["consolidated"][0]["fact"]
    texts = [h.memory_id for h in graph.recall("ana", "What happened to the ferry engine?")]
    assert fact in texts and not set(pair) & set(texts) and lone not in texts
    assert pinned in [h.memory_id for h in graph.recall("ana", "vault code")]
    rows = graph.cypher("MATCH (m:Memory {id: $id}) RETURN m.utility AS s, m.human_utility AS u",
                        {"id": pinned})
    assert rows[0]["u"] == 1.0 and rows[0]["s"] >= 0.3


def test_decay_settings_are_checked(graph):
    with pytest.raises(InvalidInput, match="invalid decay settings"):
        graph.set_decay(threshold=2.0)
    with pytest.raises(InvalidInput, match="task is empty"):
        graph.set_task("ana", " ")


def test_on_the_deposit_clock_a_replayed_history_decays_as_it_happened(embedded_graph):
    g = embedded_graph
    old = g.remember("ana", "The mill pond froze over.", at="2023-01-01T09:00").memory_ids[0]
    new = g.remember("ana", "The orchard was planted.", at="2023-03-02T09:00").memory_ids[0]

    def recency_of() -> dict[str, float]:
        rows = g.cypher("MATCH (m:Memory) RETURN m.id AS id, m.recency AS r")
        return {r["id"]: r["r"] for r in rows}

    g.maintain()  # the wall clock: both were written moments ago
    assert recency_of()[old] == pytest.approx(1.0, abs=1e-3)
    g.set_decay(clock="deposit", half_life_days=30)
    g.maintain()  # now = the newest deposit; the pond froze 60 days before it
    salience = {r["id"]: r["s"] or 0.0 for r in g.cypher(
        "MATCH (m:Memory) RETURN m.id AS id, m.salience AS s")}  # slows decay by (1 + s)
    assert recency_of()[new] == pytest.approx(1.0)
    assert recency_of()[old] == pytest.approx(0.5 ** (2 / (1 + salience[old])), abs=1e-3)
    g.maintain(now="2023-04-01T09:00")  # an explicit replay time still wins
    assert recency_of()[new] == pytest.approx(0.5 ** (1 / (1 + salience[new])), abs=1e-3)


def test_on_the_deposit_clock_a_hit_shows_the_score_maintenance_recorded(embedded_graph):
    g = embedded_graph
    g.remember("ana", "The mill pond froze over.", at="2023-01-01T09:00")
    g.remember("ana", "The orchard was planted.", at="2023-03-02T09:00")
    g.set_decay(clock="deposit", half_life_days=30)
    g.maintain()
    recorded = {r["id"]: (r["s"], r["r"]) for r in g.cypher(
        "MATCH (m:Memory) RETURN m.id AS id, m.utility AS s, m.recency AS r")}
    hits = g.recall("ana", "What happened to the mill pond and the orchard?")
    assert len(hits) == 2
    for hit in hits:  # the same clock: the same now and the same time each was learned
        assert (hit.utility["S"], hit.utility["R"]) == pytest.approx(recorded[hit.memory_id],
                                                                    abs=1e-4)
    assert min(hit.utility["R"] for hit in hits) < 0.5  # the pond froze two half-lives ago


def test_an_unknown_clock_is_refused(graph):
    with pytest.raises(InvalidInput, match="invalid decay settings"):
        graph.set_decay(clock="sundial")

"""Salience at encoding, procedural memories, the working-memory buffer, promotion of
frequent episodes, reconsolidation and per-kind capacities."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graphmem.lifecycle.decay import reconsolidate
from graphmem.salience import SalienceTagger

TAG = SalienceTagger()


def test_salience_tags_what_matters():
    assert "emotion" in TAG("Ana is terrified of the storm tonight.", nearest_similarity=0.9).tags
    assert "explicit" in TAG("Remember that the vault code is 4471.", nearest_similarity=0.9).tags
    assert "identity" in TAG("Ana is a nurse.", nearest_similarity=0.9).tags
    plain = TAG("The crate was moved to the second shelf.", nearest_similarity=0.9)
    assert plain.tags == () and plain.score < 0.5
    assert "novelty" in TAG("The crate was moved.", nearest_similarity=0.1).tags


@given(st.floats(0, 1), st.lists(st.sampled_from([0.0, 1.0]), max_size=20), st.floats(0.01, 1))
def test_reconsolidation_stays_in_range_and_follows_the_evidence(start, evidence, rate):
    after = reconsolidate(start, evidence, rate)
    assert 0.0 <= after <= 1.0
    if evidence and all(e == 1.0 for e in evidence):
        assert after >= start - 1e-12
    if evidence and all(e == 0.0 for e in evidence):
        assert after <= start + 1e-12


def test_salience_is_stored_and_procedures_are_their_own_kind(graph):
    mid = graph.remember("ana", "Remember that the vault code is 4471.").memory_ids[0]
    how = graph.remember("ana", "To reset the crane, hold the red lever for ten seconds.",
                         kind="procedural").memory_ids[0]
    rows = graph.cypher("MATCH (m:Memory) WHERE m.id IN $ids RETURN m.id AS id, m.kind AS kind,"
                        " m.salience AS s, m.salience_tags AS tags", {"ids": [mid, how]})
    by_id = {r["id"]: r for r in rows}
    assert "explicit" in by_id[mid]["tags"] and by_id[mid]["s"] >= 0.5
    assert by_id[how]["kind"] == "procedural"


def test_working_memory_keeps_the_last_ten_touched(graph):
    ids = [graph.remember("ana", f"Crate number {i} went to shelf {i}.").memory_ids[0]
           for i in range(12)]
    assert graph.working_memory("ana") == ids[-10:]
    hit = graph.recall("ana", "Where did crate number 0 go?", k=1)[0]
    assert graph.working_memory("ana")[-1] == hit.memory_id


def test_frequent_episodes_are_promoted_and_facts_reconsolidated(graph):
    fact = graph.remember("ana", "The harbour closes at ten at night.",
                          witnesses=["ben", "cy"]).memory_ids[0]
    report = graph.maintain()
    assert report["promoted"] == [fact]
    graph.remember("ben", "The harbour shuts at ten in the evening.")
    graph.remember("cy", "The harbour closes at eleven at night.")
    report = graph.maintain()
    assert fact in report["reconsolidated"]
    strength = report["reconsolidated"][fact]
    assert 0.0 < strength < 1.0  # one alike (1) and one contradicting (0), damped by λ


def test_capacities_prune_the_lowest_utility_first(graph):
    kept = graph.remember("ana", "The crane manual is in the blue binder.").memory_ids[0]
    graph.pin(kept, by="ines")
    for i in range(4):
        graph.remember("ana", f"Gull number {i} sat on post {i * 7} of the pier.")
    graph.set_decay(capacities={"episodic": 3}, threshold=0.0)
    report = graph.maintain()
    assert len(report["over_capacity"]) == 2 and kept not in report["over_capacity"]
    live = graph.cypher("MATCH (m:Memory) WHERE NOT m.forgotten RETURN count(m) AS n")
    assert live == [{"n": 3}]

"""Nothing leaks across owners: a co-owner searches only its own deposit's context, and
explain and conflicts name only what the asker owns."""

from __future__ import annotations

from graphmem import BM25_ONLY

STATEMENT = "The old ferry has been running for three years."


def test_a_co_owner_cannot_search_another_depositors_context(mem):
    a = mem.remember("ana", STATEMENT, context="Do you still keep the turtles?")
    b = mem.remember("ben", STATEMENT, context="How long have you lived in Lisbon?")
    assert b.atoms[0].action == "merged" and b.memory_ids == a.memory_ids
    found = lambda agent, q: [h.text for h in mem.recall(agent, q, config=BM25_ONLY)]  # noqa: E731
    assert found("ana", "turtles") and not found("ben", "turtles")
    assert found("ben", "Lisbon") and not found("ana", "Lisbon")
    assert found("ana", "ferry running") and found("ben", "ferry running")


def test_explain_names_only_entities_of_memories_the_asker_owns(mem):
    mem.remember("cy", "Melanie sailed to Corfu in her red boat.")
    mem.remember("ana", "The harbour was quiet all morning.")
    hits = mem.recall("ana", "Where did Melanie sail?", explain=True)
    assert hits and hits[0].explain["entities"] == []
    mine = mem.recall("cy", "Where did Melanie sail?", explain=True)
    assert mine[0].explain["entities"]


def test_conflicts_name_only_owned_memories_and_count_the_rest(mem):
    a = mem.remember("ana", "The ship carries 40 crates of medicine.")
    b = mem.remember("ben", "The ship carries 39 crates of medicine.")
    assert b.atoms[0].contradicts == a.memory_ids
    hit = mem.recall("ben", "How many crates does the ship carry?")[0]
    assert hit.conflicts == [] and hit.conflicts_unseen == 1
    mem.remember("ana", "The ship carries 39 crates of medicine.")  # ana now owns both
    both = {h.memory_id: h for h in mem.recall("ana", "How many crates?")}
    assert both[a.memory_ids[0]].conflicts == b.memory_ids

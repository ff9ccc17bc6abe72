"""The write path's matching: the deposit context reaches the judge (issue 12)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

T0 = datetime(2026, 5, 4, 12, 0, tzinfo=timezone.utc)


def test_the_same_words_at_different_places_stay_two_memories(embedded_graph):
    g = embedded_graph
    first = g.remember("ann", "The fire alarm rang.", place="library")
    second = g.remember("bob", "The fire alarm rang.", place="gym")
    assert first.memory_ids != second.memory_ids
    assert second.atoms[0].action == "created"


def test_the_same_words_at_one_place_and_time_merge_with_the_reason(embedded_graph):
    g = embedded_graph
    first = g.remember("ann", "The fire alarm rang.", place="library", at=T0)
    second = g.remember("bob", "The fire alarm rang.", place="library", at=T0)
    assert second.memory_ids == first.memory_ids
    assert second.atoms[0].action == "merged" and second.atoms[0].reason


def test_the_same_words_at_distant_given_times_stay_apart(embedded_graph):
    g = embedded_graph
    first = g.remember("ann", "The fire alarm rang.", at=T0)
    second = g.remember("bob", "The fire alarm rang.", at=T0 + timedelta(hours=3))
    assert first.memory_ids != second.memory_ids


def test_without_given_times_the_clock_does_not_split_a_memory(embedded_graph):
    g = embedded_graph
    first = g.remember("ann", "The fire alarm rang in the library.")
    second = g.remember("bob", "The fire alarm rang in the library.")
    assert second.memory_ids == first.memory_ids


def test_a_swapped_deposit_is_a_contradiction_not_a_merge(embedded_graph):
    g = embedded_graph
    first = g.remember("ann", "omar thanked jerry.")
    second = g.remember("bob", "omar was thanked by jerry.")
    assert first.memory_ids != second.memory_ids
    assert first.memory_ids[0] in second.atoms[0].contradicts
    assert "roles swapped" in second.atoms[0].reason


def test_a_new_memory_keeps_the_reason_it_did_not_merge(embedded_graph):
    g = embedded_graph
    g.remember("ann", "The shop is open.", place="market")
    created = g.remember("bob", "The rain stopped.", place="market")
    assert created.atoms[0].action == "created" and "similarity" in created.atoms[0].reason

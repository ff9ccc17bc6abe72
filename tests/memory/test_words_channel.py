"""The words channel: BM25 over what a memory says, not over the context it answered."""

from __future__ import annotations

from graphmem.retrieval.config import RecallConfig


def test_context_finds_a_reply_only_through_bm25_not_words(mem):
    ids = mem.remember("ana", "Three years now.", context="How long have you had turtles?",
                       at="2023-05-01").memory_ids
    mem.remember("ana", "I bought a red bicycle.", at="2023-05-02")
    bm25 = RecallConfig(channels=("bm25",), weights={"bm25": 1.0}, classify=False)
    words = RecallConfig(channels=("words",), weights={"words": 1.0}, classify=False)
    assert [h.memory_id for h in mem.recall("ana", "turtles", k=3, config=bm25)] == ids
    assert mem.recall("ana", "turtles", k=3, config=words) == []
    assert [h.memory_id for h in mem.recall("ana", "three years", k=3, config=words)] == ids


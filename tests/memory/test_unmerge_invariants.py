"""Unmerge is exact: over random sequences of deposits (which merge) and unmerges of any
live merge, every memory keeps an owner and its owners are the parties of the deposits
still standing behind it (the one that made it and its merges not undone)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import InvalidInput, MemoryGraph

AGENTS = ["ana", "ben", "cy", "dee"]
STATEMENTS = ["The north pier was closed for repairs on Tuesday.",
              "A fishing boat lost its mast in the storm."]

deposit = st.tuples(st.just("remember"), st.sampled_from(AGENTS), st.sampled_from(STATEMENTS),
                    st.sets(st.sampled_from(AGENTS), max_size=2))
undo = st.tuples(st.just("unmerge"), st.integers(0, 10), st.integers(0, 10), st.just(None))


def owners_by_memory(g: MemoryGraph) -> dict[str, set[str]]:
    rows = g.cypher("MATCH (m:Memory {ns: 'u'}) OPTIONAL MATCH (a:Agent)-[:OWNS]->(m) "
                    "RETURN m.id AS id, collect(a.id) AS owners")
    return {r["id"]: set(r["owners"]) for r in rows}


def expected_owners(g: MemoryGraph, memory: str) -> set[str]:
    live = [json.loads(r["payload"])["deposit"] for r in g.query(
        "memory/merge_ops", {"ns": "u", "memory": memory})]
    rows = g.query("memory/ownership_sources", {"ns": "u", "memory": memory, "merged": live})
    return {a for r in rows for a in [r["agent"], *(r["witnesses"] or [])]}


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.one_of(deposit, deposit, undo), min_size=3, max_size=9))
def test_owners_are_the_union_of_live_operations(embedded_graph, steps):
    g = embedded_graph
    g.drop_namespace("u")
    for action, a, b, c in steps:
        if action == "remember":
            g.remember(a, b, witnesses=sorted(c - {a}), ns="u")
        else:
            merged = sorted(m for m in owners_by_memory(g)
                            if g.query("memory/merge_ops", {"ns": "u", "memory": m}))
            if not merged:
                continue
            memory = merged[a % len(merged)]
            ops = g.query("memory/merge_ops", {"ns": "u", "memory": memory})
            g.unmerge(memory, ns="u", op_id=ops[b % len(ops)]["id"])
        for memory, owners in owners_by_memory(g).items():
            assert owners, f"memory {memory} has no owner after {action}"
            assert owners == expected_owners(g, memory), (memory, action)


def test_unmerging_an_earlier_merge_keeps_what_a_later_one_gave(mem):
    first = mem.remember("ana", STATEMENTS[0])
    mem.remember("ben", STATEMENTS[0], witnesses=["dee"])   # merge 1: ben, dee
    mem.remember("cy", STATEMENTS[0], witnesses=["dee"])    # merge 2: cy, dee
    memory = first.memory_ids[0]
    ops = mem.query("memory/merge_ops", {"ns": "default", "memory": memory})
    earlier = min(ops, key=lambda r: r["seq"])
    restored = mem.unmerge(memory, op_id=earlier["id"])
    rows = mem.cypher("MATCH (a:Agent)-[:OWNS]->(m:Memory {id: $id}) RETURN collect(a.id) AS o",
                      {"id": memory})
    assert sorted(rows[0]["o"]) == ["ana", "cy", "dee"]
    rows = mem.cypher("MATCH (a:Agent)-[:OWNS]->(m:Memory {id: $id}) RETURN collect(a.id) AS o",
                      {"id": restored})
    assert sorted(rows[0]["o"]) == ["ben", "dee"]
    with pytest.raises(InvalidInput, match="no merge"):
        mem.unmerge(memory, op_id=earlier["id"])

"""The typed statement parameters match the query files, for every backend, and a
deposit's memory writes, folded to one per memory, mean what its planned rows mean."""

from __future__ import annotations

import re
from dataclasses import fields

import pytest
from hypothesis import given, strategies as st

from graphmem.queries import query_files
from graphmem.statements import CREATED_MEMORY_PROPERTIES, DepositRows, UnmergeRows


@pytest.mark.parametrize("rows, name", [(DepositRows, "memory/apply_deposit"),
                                        (UnmergeRows, "memory/unmerge")])
def test_fields_are_exactly_the_query_parameters(rows, name):
    variants = [q for q in query_files() if q.name == name]
    assert {q.backend for q in variants} == {"falkordb", "neo4j"}
    for query in variants:
        assert rows.parameter_names() == set(query.parameters), query.path


def test_every_deposit_row_is_sent_or_folded():
    # a field added to DepositRows and to neither list would never reach the statement
    names = {f.name for f in fields(DepositRows)}
    assert names == set(DepositRows.PASSED) | set(DepositRows.FOLDED)
    assert not set(DepositRows.PASSED) & set(DepositRows.FOLDED)


CREATED = re.compile(r"\b(\w+): m\.props\.(\w+)\b")


@pytest.mark.parametrize("query", [q for q in query_files() if q.name == "memory/apply_deposit"],
                         ids=lambda q: q.backend)
def test_a_new_memory_is_created_with_every_property_it_may_have(query):
    named = CREATED.findall(query.text)
    assert all(key == prop for key, prop in named), named
    assert sorted(key for key, _ in named) == sorted(CREATED_MEMORY_PROPERTIES)


def applied_clause_by_clause(rows: DepositRows) -> dict[str, dict]:
    """What the statement's clauses used to leave on each memory, one clause after another
    in the statement's order (the meaning memory_writes must keep)."""
    nodes: dict[str, dict] = {}
    for m in rows.new:
        nodes[m["id"]] = {k: v for k, v in m["props"].items() if v is not None}
    def put(mid, **props):
        node = nodes.setdefault(mid, {})
        for key, value in props.items():
            if value is None:
                node.pop(key, None)
            else:
                node[key] = value
    for u in rows.updates:
        put(u["id"], text=u["text"], variants=u["variants"], asserted_by=u["asserted_by"],
            claims=u["claims"] if u["claims"] is not None else nodes.get(u["id"], {}).get("claims"))
    for mid in rows.touch:
        put(mid)
    for s in rows.supersede:
        put(s["id"], valid_until=s["valid_until"], superseded_by=s.get("by"))
    for c in rows.confidence:
        put(c["id"], confidence=c["confidence"], quarantined=c["quarantined"],
            asserted_from=c["asserted_from"], domain=c["domain"])
    return nodes


def applied_folded(rows: DepositRows) -> dict[str, dict]:
    """What the folded rows leave: new memories created whole, the rest set once."""
    new, changes = rows.memory_writes()
    nodes = {m["id"]: {k: v for k, v in m["props"].items() if v is not None} for m in new}
    for c in changes:
        node = nodes.setdefault(c["id"], {})
        for key, value in c["props"].items():
            if value is None:
                node.pop(key, None)
            else:
                node[key] = value
    return nodes


IDS = st.sampled_from(["m1", "m2", "m3", "m4"])
WORDS = st.sampled_from(["a", "b", "c"])
MAYBE = st.one_of(st.none(), WORDS)


@st.composite
def deposit_rows(draw) -> DepositRows:
    new_ids = draw(st.lists(IDS, unique=True, max_size=2))
    old = st.sampled_from(["m1", "m2", "m3", "m4", "x1", "x2"]).filter(lambda i: i not in new_ids)
    return DepositRows(
        agents=["ann"], deposit={}, produced=[], owns=[], links=[], contradicts=[],
        entities=[], mentions=[], arcs=[], arc_cuts=[], arc_adds=[], oplog=[],
        new=[{"id": i, "embedding": [0.0], "props": {
            "text": draw(WORDS), "variants": [draw(WORDS)], "asserted_by": ["ann"],
            "claims": draw(st.one_of(st.none(), st.lists(WORDS, max_size=2))),
            "domain": draw(MAYBE)}} for i in new_ids],
        updates=[{"id": i, "text": draw(WORDS), "variants": [draw(WORDS)],
                  "asserted_by": ["ann", "ben"],
                  "claims": draw(st.one_of(st.none(), st.lists(WORDS, max_size=2)))}
                 for i in draw(st.lists(old, unique=True, max_size=2))],
        touch=draw(st.lists(old, unique=True, max_size=2)),
        supersede=[{"id": i, "valid_until": draw(st.integers(0, 9)), "by": draw(MAYBE)}
                   for i in draw(st.lists(IDS | old, unique=True, max_size=2))],
        confidence=[{"id": i, "confidence": draw(st.floats(0, 1)),
                     "quarantined": draw(st.booleans()), "asserted_from": [draw(WORDS)],
                     "domain": draw(MAYBE)}
                    for i in draw(st.lists(IDS | old, unique=True, max_size=3))])


@given(deposit_rows())
def test_one_write_per_memory_leaves_what_the_clauses_did_in_turn(rows):
    assert applied_folded(rows) == applied_clause_by_clause(rows)
    new, changes = rows.memory_writes()
    changed = [c["id"] for c in changes]
    assert len(changed) == len(set(changed))
    assert not set(changed) & {m["id"] for m in new}


def test_a_property_the_statement_would_not_create_is_refused():
    rows = DepositRows(agents=[], deposit={}, new=[{"id": "m1", "embedding": [0.0],
                                                    "props": {"text": "x", "colour": "red"}}],
                       updates=[], touch=[], produced=[], owns=[], links=[], contradicts=[],
                       supersede=[], entities=[], mentions=[], arcs=[], arc_cuts=[],
                       arc_adds=[], oplog=[])
    with pytest.raises(ValueError, match="colour"):
        rows.memory_writes()

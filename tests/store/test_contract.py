"""The backend contract: every backend behaves the same through the Store interface."""

from __future__ import annotations

import pytest

from graphmem.errors import ConstraintViolation, QueryFailed, ReadOnlyViolation
from graphmem.queries import LABELS
from graphmem.store.base import Statement
from graphmem.store.schema import SCHEMA_VERSION


def test_schema_is_recorded_and_idempotent(graph):
    assert len(graph._store.schema_steps()) == SCHEMA_VERSION
    assert graph._store.ensure_schema() == []
    assert len(graph._store.schema_steps()) == SCHEMA_VERSION


@pytest.mark.parametrize("label", LABELS)
def test_ns_id_is_unique_for_every_label(graph, label):
    graph.cypher(f"CREATE (:{label} {{ns: 'a', id: 'x'}})", write=True)
    graph.cypher(f"CREATE (:{label} {{ns: 'b', id: 'x'}})", write=True)  # other ns: fine
    with pytest.raises(ConstraintViolation):
        graph.cypher(f"CREATE (:{label} {{ns: 'a', id: 'x'}})", write=True)
    rows = graph.cypher(f"MATCH (n:{label}) RETURN n.ns AS ns ORDER BY ns")
    assert [r["ns"] for r in rows] == ["a", "b"]


def test_rows_are_dicts_with_parameters(graph):
    graph.cypher("CREATE (:Agent {ns: $ns, id: $id, name: $name})",
                 {"ns": "t", "id": "a1", "name": "O'Brien \"Bob\""}, write=True)
    rows = graph.cypher("MATCH (a:Agent {ns: $ns}) RETURN a.id AS id, a.name AS name",
                        {"ns": "t"})
    assert rows == [{"id": "a1", "name": "O'Brien \"Bob\""}]


def test_read_refuses_to_write(graph):
    with pytest.raises(ReadOnlyViolation):
        graph.cypher("CREATE (:Agent {ns: 't', id: 'nope'})")
    assert graph.cypher("MATCH (a:Agent {id: 'nope'}) RETURN a") == []


def test_failed_write_leaves_no_trace(graph):
    graph.cypher("CREATE (:Memory {ns: 't', id: 'm1'})", write=True)
    with pytest.raises(ConstraintViolation):
        graph.cypher("UNWIND ['m2', 'm3', 'm1'] AS id CREATE (:Memory {ns: 't', id: id})",
                     write=True)
    rows = graph.cypher("MATCH (m:Memory {ns: 't'}) RETURN m.id AS id")
    assert [r["id"] for r in rows] == ["m1"]


def test_bad_parameter_fails_cleanly(graph):
    with pytest.raises(QueryFailed):
        graph.cypher("UNWIND $xs AS x CREATE (:Memory {ns: 't', id: toString(10 / x)})",
                     {"xs": [1, 2, 0]}, write=True)
    assert graph.cypher("MATCH (m:Memory) RETURN count(m) AS n") == [{"n": 0}]


def test_transaction_runs_statements_in_order(graph):
    results = graph._store.transaction([
        Statement("CREATE (:Agent {ns: 't', id: 'a'})"),
        Statement("MATCH (a:Agent {ns: 't', id: 'a'}) SET a.name = $n RETURN a.name AS name",
                  {"n": "Ada"}),
    ])
    assert results[1] == [{"name": "Ada"}]


def test_read_noting_notes_the_version_and_reads(graph):
    """A write's catch-up read and its journal note go together (one round trip where
    the backend can): the rows are the read's, and the journal holds the version where
    the backend keeps one."""
    store = graph._store
    graph.cypher("CREATE (:Agent {ns: 't', id: 'a1'})", write=True)
    query = "MATCH (a:Agent {ns: $ns}) RETURN a.id AS id"
    assert store.read_noting("t", 7, query, {"ns": "t"}) == store.read(query, {"ns": "t"}) \
        == [{"id": "a1"}]
    keeps = store.capabilities.backend == "falkordb"
    assert store.noted_versions() == ({"t": 7} if keeps else {})
    with pytest.raises(ReadOnlyViolation):  # a read it stays
        store.read_noting("t", 8, "CREATE (:Agent {ns: 't', id: 'nope'})")
    assert graph.cypher("MATCH (a:Agent {id: 'nope'}) RETURN a") == []


def test_tracer_sees_every_query(graph):
    seen = []
    with graph.tracer(lambda q, p: seen.append((q, dict(p)))):
        graph.cypher("RETURN $x AS x", {"x": 1})
    assert seen == [("RETURN $x AS x", {"x": 1})]


def _memory_indexes(graph) -> set[str]:
    """The kinds of index on Memory properties, as the backend lists them."""
    if graph._store.capabilities.backend == "falkordb":
        rows = graph.cypher("CALL db.indexes() YIELD label, types WHERE label = 'Memory' "
                            "RETURN types")
        return {kind for row in rows for kinds in row["types"].values() for kind in kinds}
    rows = graph.cypher("SHOW INDEXES YIELD type, labelsOrTypes "
                        "WHERE 'Memory' IN labelsOrTypes RETURN type")
    return {row["type"] for row in rows}


def test_no_full_text_index_on_memories(graph):
    """Nothing reads one, and every property update of a memory would re-index its text."""
    assert not {"FULLTEXT"} & _memory_indexes(graph)


def test_a_store_made_with_the_full_text_index_drops_it(graph):
    store = graph._store
    store.write("MATCH (s:GraphmemSchema {name: 'memory_text_fulltext_dropped'}) DELETE s")
    if store.capabilities.backend == "falkordb":
        store.write("CALL db.idx.fulltext.createNodeIndex('Memory', 'text')")
    else:
        store.write("CREATE FULLTEXT INDEX memory_text IF NOT EXISTS "
                    "FOR (m:Memory) ON EACH [m.text]")
    assert "FULLTEXT" in _memory_indexes(graph)
    assert store.ensure_schema() == ["memory_text_fulltext_dropped"]
    assert "FULLTEXT" not in _memory_indexes(graph)


def test_compacting_the_log_keeps_every_record(graph):
    graph.cypher("UNWIND range(1, 50) AS i CREATE (:Memory {ns: 't', id: toString(i)})",
                 write=True)
    started = graph._store.compact_log()
    assert started is (graph._store.capabilities.backend == "falkordb")  # Neo4j: its own
    assert graph.cypher("MATCH (m:Memory {ns: 't'}) RETURN count(m) AS n") == [{"n": 50}]

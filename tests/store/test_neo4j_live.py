"""What only Neo4j promises, on a real server (NEO4J_URI, or Docker); else skipped.

The shared behaviour (schema, uniqueness, read-only, rollback of one statement,
tracing) is the contract suite, tests/store/test_contract.py, whose ``backend`` fixture
runs it on Neo4j too. Here: capabilities, multi-statement rollback, value shapes.
"""

from __future__ import annotations

import datetime as dt

import pytest

from graphmem.errors import ConstraintViolation, QueryFailed
from graphmem.store.base import Statement
from graphmem.store.neo4j import Neo4jStore
from graphmem.store.schema import SCHEMA_VERSION
from graphmem.store.uri import parse_uri

pytestmark = pytest.mark.neo4j


@pytest.fixture
def store(neo4j_server):
    s = Neo4jStore(parse_uri(neo4j_server["uri"]), neo4j_server["user"],
                   neo4j_server["password"])
    s.ensure_schema()
    s.write("MATCH (n) WHERE NOT n:GraphmemSchema AND NOT n:GraphmemUpgrade DETACH DELETE n")
    yield s
    s.close()


def test_capabilities(store):
    caps = store.capabilities
    assert caps.backend == "neo4j" and caps.multi_statement_rollback
    assert int(caps.version.split(".")[0]) >= 5
    assert len(store.schema_steps()) == SCHEMA_VERSION


def test_failed_transaction_rolls_back_every_statement(store):
    store.write("CREATE (:Memory {ns: 't', id: 'm1'})")
    with pytest.raises(ConstraintViolation):
        store.transaction([
            Statement("CREATE (:Agent {ns: 't', id: 'a1'})"),
            Statement("MATCH (m:Memory {ns: 't', id: 'm1'}) SET m.text = 'changed'"),
            Statement("CREATE (:Memory {ns: 't', id: 'm1'})"),
        ])
    assert store.read("MATCH (a:Agent {ns: 't'}) RETURN a") == []
    assert store.read("MATCH (m:Memory {ns: 't'}) RETURN m.text AS text") == [{"text": None}]


def test_schema_ddl_and_data_in_one_transaction_is_refused(store):
    with pytest.raises(QueryFailed):
        store.transaction([Statement("CREATE (:Agent {ns: 't', id: 'x'})"),
                           Statement("CREATE INDEX tmp_idx IF NOT EXISTS FOR (n:Agent) ON (n.name)")])
    assert store.read("MATCH (a:Agent {ns: 't'}) RETURN a") == []


def test_values_come_back_plain(store):
    rows = store.write(
        "CREATE (a:Agent {ns: 't', id: 'a'})-[r:OWNS {via: 'told'}]->(m:Memory {ns: 't', id: 'm'}) "
        "RETURN a, r, [(a)-[:OWNS]->(x) | x.id] AS owned, date('2024-05-06') AS d, "
        "datetime('2024-05-06T07:08:09Z') AS t")
    assert rows == [{
        "a": {"_labels": ["Agent"], "ns": "t", "id": "a"},
        "r": {"_type": "OWNS", "via": "told"},
        "owned": ["m"],
        "d": dt.date(2024, 5, 6),
        "t": dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.timezone.utc),
    }]
    path = store.read("MATCH p = (:Agent {ns: 't'})-[:OWNS]->(:Memory) RETURN p")
    assert [n["id"] for n in path[0]["p"]] == ["a", "m"]

"""graphmem on a Neo4j cluster (NEO4J_CLUSTER_URI, a ``neo4j://`` routing URI); else skipped.

A cluster routes each read to a follower or read replica. The store shares one bookmark
manager among its sessions, so a handle reads its own writes (causal consistency);
writes go to the leader, where the namespace-version guard is evaluated, so handles on
different cluster members race safely. No Neo4j runs on the machines these tests were
written on; docs/scaling-out.md says how to run them (NEO4J_USER, NEO4J_PASSWORD too).
"""

from __future__ import annotations

import os
import threading
import uuid

import pytest

from graphmem import MemoryGraph

pytestmark = pytest.mark.neo4j

CLUSTER = os.environ.get("NEO4J_CLUSTER_URI")
if not CLUSTER:
    pytest.skip("no Neo4j cluster: set NEO4J_CLUSTER_URI=neo4j://host:7687 (a routing URI "
                "of a Neo4j 5 cluster with at least one secondary) to run these",
                allow_module_level=True)


@pytest.fixture
def handles(embedder):
    auth = {"user": os.environ.get("NEO4J_USER", "neo4j"),
            "password": os.environ.get("NEO4J_PASSWORD")}
    opened = [MemoryGraph.open(uri=CLUSTER, embedder=embedder, **auth) for _ in range(2)]
    yield opened
    for g in opened:
        g.close()


def test_a_handle_reads_every_write_of_its_own_at_once(handles):
    g, _ = handles
    ns = f"cluster-{uuid.uuid4().hex[:8]}"
    for i in range(20):  # each recall's reads may go to another member: none may lag
        text = f"Container {i} was sealed at gate {i}."
        g.remember("ana", text, ns=ns)
        assert text in {h.text for h in g.recall("ana", f"gate {i}", ns=ns, k=3)}


def test_writers_on_two_handles_lose_and_duplicate_nothing(handles):
    ns = f"cluster-{uuid.uuid4().hex[:8]}"
    facts = [f"Pallet {i} went to the cold store." for i in range(8)]

    def deposit(g: MemoryGraph, agent: str) -> None:
        for fact in facts:
            g.remember(agent, fact, ns=ns)

    threads = [threading.Thread(target=deposit, args=(g, a))
               for g, a in zip(handles, ("ana", "ben"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = handles[0].cypher("MATCH (m:Memory {ns: $ns})<-[:OWNS]-(a:Agent) "
                             "RETURN m.text AS text, collect(a.id) AS owners", {"ns": ns})
    assert sorted(r["text"] for r in rows) == sorted(facts)
    assert all(sorted(r["owners"]) == ["ana", "ben"] for r in rows)

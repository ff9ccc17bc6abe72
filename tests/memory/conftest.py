"""Fixtures for the memory tests: one real embedder per session, and a MemoryGraph on
every backend (the Neo4j leg runs wherever NEO4J_URI is set or Docker can start Neo4j,
and skips with the reason otherwise)."""

from __future__ import annotations

import pytest

from graphmem import MemoryGraph


@pytest.fixture
def mem(backend, embedder):
    """A consensus MemoryGraph on each backend, empty."""
    g = MemoryGraph.open(**backend, embedder=embedder)
    if "uri" in backend:  # a shared server: start from an empty graph
        g.cypher("MATCH (n) WHERE NOT n:GraphmemSchema AND NOT n:GraphmemUpgrade "
                 "DETACH DELETE n", write=True)
    yield g
    g.close()

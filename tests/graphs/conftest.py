"""Fixtures for the graph tests: one real embedder per session."""

from __future__ import annotations

import pytest

from graphmem import MemoryGraph
from graphmem.embed import default_embedder


@pytest.fixture(scope="session")
def embedder():
    return default_embedder()


@pytest.fixture
def mem(tmp_path, embedder):
    """A consensus MemoryGraph on a fresh embedded store."""
    g = MemoryGraph.open(data_dir=tmp_path / "data", embedder=embedder)
    yield g
    g.close()

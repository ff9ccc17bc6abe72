from __future__ import annotations

import pytest

from graphmem import MemoryGraph
from tests.view_snapshot.stores import NS, fill


@pytest.fixture
def stored(tmp_path):
    """A store of `stores.FACTS`, its view read (and so its snapshot saved)."""
    g = MemoryGraph.open(data_dir=tmp_path / "data")
    fill(g)
    g.warm(NS)
    yield g
    g.close()

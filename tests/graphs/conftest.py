"""Fixtures for the graph tests: a small village namespace on a real store."""

from __future__ import annotations

import pytest

from graphmem import MemoryGraph


NS = "village"
PEOPLE = {"anna": "Anna", "ben": "Ben", "carl": "Carl", "dora": "Dora"}


@pytest.fixture(scope="package")
def village(tmp_path_factory, embedder):
    """Four villagers in two pairs that talk and share memories, and a well."""
    g = MemoryGraph.open(data_dir=tmp_path_factory.mktemp("g") / "data", embedder=embedder)
    for pid, name in PEOPLE.items():
        g.register_agent(pid, kind="character", name=name, ns=NS)
    g.register_agent("well", kind="environment", name="The well", ns=NS)
    g.remember("anna", "Anna and Ben fixed the mill wheel on Tuesday.", witnesses=["ben"], ns=NS)
    g.remember("ben", "The miller paid Ben two sacks of flour.", witnesses=["anna"], ns=NS)
    g.remember("carl", "Carl saw a fox near the henhouse. Dora chased it away.",
               witnesses=["dora"], ns=NS)
    g.remember("well", "The well ran dry in August.", ns=NS)
    g.query("worlds/record_messages", {"ns": NS, "pairs": [
        {"sender": "anna", "recipient": "ben", "count": 3, "round": 0},
        {"sender": "carl", "recipient": "dora", "count": 1, "round": 0}]}, write=True)
    yield g
    g.close()

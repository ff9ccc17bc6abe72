"""A small two-person scene in a real store, for tests that recall from one."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def two_people(data_dir: Path, ns: str, scene: Sequence[tuple[str, str, str]]):
    """A MemoryGraph in ``data_dir`` where Ana and Ben each remembered their lines of
    ``scene`` ((agent, text, at) triples), the other one witnessing; close it after."""
    from graphmem import MemoryGraph

    graph = MemoryGraph.open(data_dir=data_dir)
    for agent in ("ana", "ben"):
        graph.register_agent(agent, kind="human", name=agent.capitalize(), ns=ns)
    for agent, text, at in scene:
        other = "ben" if agent == "ana" else "ana"
        graph.remember(agent, text, witnesses=[other], at=at, ns=ns)
    return graph


def channel_alone(channel: str):
    """The default recall config with only ``channel`` running, at weight 1 for every
    kind of question (no classifier, so no route either)."""
    from graphmem.retrieval.config import HYBRID

    return HYBRID.model_copy(update={
        "classify": False, "channels": (channel,), "weights": {channel: 1.0},
        "kind_weights": {k: {channel: 1.0} for k in HYBRID.kind_weights}})

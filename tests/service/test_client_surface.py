"""The clients keep MemoryGraph's methods: a method added to the API shows up here."""

from __future__ import annotations

import inspect

from graphmem import MemoryGraph
from graphmem.service.client import AsyncClient, Client

#: in-process only: they need the handle itself (its store, its model, its tracer)
IN_PROCESS_ONLY = {"open", "locked", "embedder", "backend", "tracer", "reembed", "attempt",
                   "check", "settle", "reclaim", "relink_timelines", "upgrades_pending",
                   # opens another store (or takes a MemoryGraph) in this process
                   "federate"}


def public_methods(cls) -> set[str]:
    return {name for name, _ in inspect.getmembers(cls) if not name.startswith("_")}


def test_every_api_method_is_on_the_clients():
    wanted = public_methods(MemoryGraph) - IN_PROCESS_ONLY
    assert wanted - public_methods(Client) == set()
    assert wanted - {"close"} - public_methods(AsyncClient) == set()


def test_the_clients_take_the_same_arguments():
    for name in public_methods(MemoryGraph) - IN_PROCESS_ONLY - {"close"}:
        api = inspect.signature(getattr(MemoryGraph, name)).parameters
        ours = inspect.signature(getattr(Client, name)).parameters
        assert list(api) == list(ours), name

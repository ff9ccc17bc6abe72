"""The service's routes for curation and decay: what ``graphmem.lifecycle`` offers through
``MemoryGraph`` (pin, forget, correct, delete, consolidate, tasks, decay, maintain).

Every one writes, so each runs once per idempotency key (``once`` from the app).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request

from graphmem.api import MemoryGraph
from graphmem.lifecycle.decay import DecaySettings
from graphmem.service import wire

Once = Callable[[Request, Callable[[], Any]], Awaitable[Any]]
FLAGS = ("pin", "unpin", "forget", "unforget", "delete")


def add_lifecycle_routes(app: FastAPI, graph: Any, once: Once) -> None:
    p = f"{wire.API_PREFIX}/curation"
    for name in FLAGS:
        _flag_route(app, graph, once, name)

    @app.post(f"{p}/correct", tags=["curation"])
    async def correct(body: wire.CorrectRequest, request: Request) -> dict[str, str]:
        """A new wording that supersedes a memory from now on; returns its id."""
        new_id = await once(request, lambda: graph.correct(body.memory_id, body.text,
                                                           by=body.by, ns=body.ns))
        return {"memory_id": new_id}

    @app.post(f"{p}/consolidate", tags=["curation"])
    async def consolidate(body: wire.ConsolidateRequest, request: Request) -> dict[str, str]:
        """Several memories become one semantic fact owned by all their owners."""
        new_id = await once(request, lambda: graph.consolidate(body.memory_ids, by=body.by,
                                                               ns=body.ns))
        return {"memory_id": new_id}

    @app.post(f"{wire.API_PREFIX}/decay/working_memory", tags=["decay"])
    def working_memory(body: wire.AgentNsRequest) -> list[str]:
        """The last memories an agent deposited or recalled through this service."""
        return graph.working_memory(body.agent, ns=body.ns)

    @app.post(f"{wire.API_PREFIX}/decay/task", tags=["decay"])
    async def set_task(body: wire.TaskRequest, request: Request) -> dict[str, str]:
        """What an agent works on now: memories relevant to it score higher."""
        await once(request, lambda: graph.set_task(body.agent, body.task, ns=body.ns))
        return {"agent": body.agent, "task": body.task}

    @app.post(f"{wire.API_PREFIX}/decay/settings", response_model=DecaySettings, tags=["decay"])
    async def set_decay(body: wire.DecayRequest, request: Request) -> DecaySettings:
        """Set a namespace's decay parameters; returns them all."""
        return await once(request, lambda: graph.set_decay(ns=body.ns, **body.settings))

    @app.post(f"{wire.API_PREFIX}/decay/maintain", tags=["decay"])
    async def maintain(body: wire.MaintainRequest, request: Request) -> dict[str, Any]:
        """Score every memory, consolidate and prune those under the threshold."""
        return await once(request, lambda: graph.maintain(ns=body.ns, now=body.now))


    @app.post(f"{wire.API_PREFIX}/decay/utilities", tags=["decay"])
    def utilities(body: wire.UtilitiesRequest) -> dict[str, dict[str, float]]:
        """The utility of each memory as recall shows it on a hit (read only)."""
        return graph.utilities(body.memory_ids, agent=body.agent, ns=body.ns)


def _flag_route(app: FastAPI, graph: Any, once: Once, name: str) -> None:
    method = getattr(MemoryGraph, name)

    async def route(body: wire.CurationRequest, request: Request) -> dict[str, str]:
        await once(request, lambda: getattr(graph, name)(body.memory_id, by=body.by,
                                                        ns=body.ns))
        return {name: body.memory_id}

    route.__doc__ = (method.__doc__ or name).split("\n")[0]
    app.post(f"{wire.API_PREFIX}/curation/{name}", tags=["curation"], name=name)(route)

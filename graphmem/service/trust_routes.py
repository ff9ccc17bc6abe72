"""The service's routes for trust between agents (``graphmem.governance``): one route per
act, ``POST /v1/trust/<act>`` with the act's keyword arguments as the JSON body.

Acts that write run once per idempotency key (``once`` from the app); the signatures a
governed namespace asks for travel in the body (``signature``) and are checked by the
``MemoryGraph`` behind the service as they would be in-process.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request

from graphmem.errors import InvalidInput
from graphmem.governance import Governance
from graphmem.service import wire

Once = Callable[[Request, Callable[[], Any]], Awaitable[Any]]
#: act -> (positional parameter names, writes?)
ACTS: dict[str, tuple[tuple[str, ...], bool]] = {
    "set_policy": ((), True),
    "trust_policy": ((), False),
    "set_trust": (("agent", "score"), True),
    "set_permission": (("agent", "level"), True),
    "lift_quarantine": (("agent",), True),
    "revoke": (("agent",), True),
    "confidence": (("memory_id",), False),
    "replayed_confidence": ((), False),
    "events": ((), False),
    "conflicts": ((), False),
    "resolve_conflict": (("memory_id", "winner_id"), True),
    "trust_profiles": ((), False),
}


def add_trust_routes(app: FastAPI, graph: Any, once: Once) -> None:
    for act in ACTS:
        _route(app, graph, once, act)


def _route(app: FastAPI, graph: Any, once: Once, act: str) -> None:
    positional, writes = ACTS[act]
    documented = getattr(Governance, act)  # the graph is None when only the spec is built

    async def call(body: dict[str, Any], request: Request) -> Any:
        missing = [name for name in positional if name not in body]
        if missing:
            raise InvalidInput(f"{act} needs {', '.join(missing)} in the request body")
        args = [body.pop(name) for name in positional]

        def run() -> Any:
            result = getattr(graph, act)(*args, **body)
            return result.model_dump() if hasattr(result, "model_dump") else result

        return await once(request, run) if writes else run()

    call.__name__ = act
    call.__doc__ = (documented.__doc__ or act).strip().splitlines()[0]
    app.post(f"{wire.API_PREFIX}/trust/{act}", tags=["trust"])(call)

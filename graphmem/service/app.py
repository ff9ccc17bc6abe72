"""The HTTP API of ``graphmem serve``: one FastAPI application over one MemoryGraph.

Every route needs ``Authorization: Bearer <token>``. Routes run in worker threads; the
``MemoryGraph`` they share makes its calls take turns, so one service gives many clients
one model, not parallelism. Writes honour the ``Idempotency-Key`` header (see
:mod:`graphmem.service.idempotency`). The OpenAPI document is at ``/openapi.json``
(authenticated like everything else) and printed by ``graphmem serve --print-openapi``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from graphmem.errors import ConfigError, GraphmemError, InvalidInput
from graphmem.models import DEFAULT_NS, Hit, RememberResult
from graphmem.retrieval.config import RecallConfig
from graphmem.service import wire
from graphmem.service.idempotency import IdempotencyCache
from graphmem.service.lifecycle_routes import add_lifecycle_routes
from graphmem.service.trust_routes import add_trust_routes

_bearer = HTTPBearer(auto_error=False, description="The token `graphmem serve` printed "
                     "or wrote to its token file.")


class Unauthorized(ConfigError):
    """A request without the service's token."""


def _rows(rows: Any) -> Any:
    # values a driver returns that JSON has no type for (Neo4j temporal types) become text
    return json.loads(json.dumps(rows, default=str))


def create_app(graph: Any, token: str, *, idempotency: IdempotencyCache | None = None) -> FastAPI:
    """The application serving ``graph`` (a MemoryGraph) to holders of ``token``."""
    if not token:
        raise ConfigError("the service needs a token")
    replay = idempotency or IdempotencyCache()

    def authorised(credentials: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> None:
        given = credentials.credentials if credentials else ""
        if not secrets.compare_digest(given.encode(), token.encode()):
            raise Unauthorized("the service refused the request: missing or wrong bearer "
                               "token; set GRAPHMEM_TOKEN (or GRAPHMEM_TOKEN_FILE) to the "
                               "token `graphmem serve` wrote")

    app = FastAPI(title="graphmem", version=_version(),
                  summary="One shared long-term memory for many agents.",
                  docs_url=None, redoc_url=None, openapi_url=None,
                  dependencies=[Depends(authorised)],
                  responses={400: {"model": wire.ErrorEnvelope}, 401: {"model": wire.ErrorEnvelope},
                             500: {"model": wire.ErrorEnvelope}, 503: {"model": wire.ErrorEnvelope}})
    app.state.graph = graph
    app.state.idempotency = replay
    _install_error_handlers(app)

    async def once(request: Request, call: Callable[[], Any]) -> Any:
        """Run a write once per idempotency key (in a worker thread)."""
        body = request.url.path.encode() + b"\0" + await request.body()
        key = request.headers.get(wire.IDEMPOTENCY_HEADER)
        return await run_in_threadpool(replay.run, key, body, call)

    p = wire.API_PREFIX

    @app.get("/openapi.json", include_in_schema=False)
    def openapi() -> dict:
        return app.openapi()

    @app.get(f"{p}/health", response_model=wire.Health, tags=["service"])
    def health() -> wire.Health:
        """The service is up; its version and backend."""
        return wire.Health(version=_version(), backend=graph.backend)

    @app.post(f"{p}/remember", response_model=RememberResult, tags=["memory"])
    async def remember(body: wire.RememberRequest, request: Request) -> RememberResult:
        """Deposit what an agent remembers (MemoryGraph.remember)."""
        args = body.model_dump()
        return await once(request, lambda: graph.remember(args.pop("agent"), args.pop("text"),
                                                          **args))

    @app.post(f"{p}/remember_many", response_model=list[RememberResult], tags=["memory"])
    async def remember_many(body: wire.RememberManyRequest, request: Request) -> list:
        """Deposit several memories, embedded together (MemoryGraph.remember_many)."""
        return await once(request, lambda: graph.remember_many(body.deposits, ns=body.ns,
                                                               batch=body.batch))

    @app.post(f"{p}/recall", response_model=list[Hit], tags=["memory"])
    def recall(body: wire.RecallRequest) -> list[Hit]:
        """The k memories an agent owns that best answer a query (MemoryGraph.recall)."""
        args = body.model_dump()
        if isinstance(args["config"], dict):
            args["config"] = RecallConfig.model_validate(args["config"])
        return graph.recall(args.pop("agent"), args.pop("query"), **args)

    @app.post(f"{p}/unmerge", tags=["memory"])
    async def unmerge(body: wire.UnmergeRequest, request: Request) -> dict[str, str]:
        """Undo a merge; returns the restored memory id (MemoryGraph.unmerge)."""
        restored = await once(request, lambda: graph.unmerge(body.memory_id, ns=body.ns,
                                                             op_id=body.op_id))
        return {"restored": restored}

    @app.post(f"{p}/agents", tags=["agents"])
    async def register_agent(body: wire.AgentRequest, request: Request) -> dict[str, Any]:
        """Create or update an agent (MemoryGraph.register_agent)."""
        return await once(request, lambda: graph.register_agent(
            body.agent, kind=body.kind, name=body.name, ns=body.ns,
            public_key=body.public_key, by=body.by, signature=body.signature))

    @app.post(f"{p}/drop_namespace", tags=["agents"])
    async def drop_namespace(body: wire.NamespaceRequest, request: Request) -> dict[str, str]:
        """Delete every node of a namespace (MemoryGraph.drop_namespace)."""
        await once(request, lambda: graph.drop_namespace(body.ns))
        return {"dropped": body.ns}

    @app.post(f"{p}/set_strict", tags=["agents"])
    async def set_strict(body: wire.StrictRequest, request: Request) -> dict[str, bool]:
        """Make a namespace refuse deposits naming unregistered agents (or not)."""
        await once(request, lambda: graph.set_strict(body.ns, body.strict))
        return {"strict": body.strict}

    add_lifecycle_routes(app, graph, once)
    add_trust_routes(app, graph, once)
    _who_knew_routes(app, graph)
    _read_routes(app, graph)
    return app


def _who_knew_routes(app: FastAPI, graph: Any) -> None:
    p = f"{wire.API_PREFIX}/who_knew"

    @app.post(f"{p}/owners_of", tags=["who knew"])
    def owners_of(body: wire.OwnersOfRequest) -> list[dict[str, Any]]:
        """Who owns the memories whose text contains a text, how, from whom, since when."""
        return _rows(graph.owners_of(body.text, ns=body.ns, limit=body.limit))

    @app.post(f"{p}/knew_at", tags=["who knew"])
    def knew_at(body: wire.KnewAtRequest) -> list[dict[str, Any]]:
        """What an agent knew at or before a time (world time), latest first."""
        return _rows(graph.knew_at(body.agent, body.at, ns=body.ns, limit=body.limit))

    @app.post(f"{p}/learned_from", tags=["who knew"])
    def learned_from(body: wire.LearnedFromRequest) -> list[dict[str, Any]]:
        """From whom an agent learned what it was told (optionally about a text)."""
        return _rows(graph.learned_from(body.agent, body.text, ns=body.ns,
                                        limit=body.limit))

    @app.post(f"{p}/shared_most", tags=["who knew"])
    def shared_most(body: wire.SharedMostRequest) -> list[dict[str, Any]]:
        """Pairs of agents sharing the most memories."""
        return _rows(graph.shared_most(ns=body.ns, limit=body.limit))


def _read_routes(app: FastAPI, graph: Any) -> None:
    p = wire.API_PREFIX

    @app.get(f"{p}/stats", tags=["store"])
    def stats(ns: str = DEFAULT_NS) -> dict[str, Any]:
        """Structure metrics of a namespace (MemoryGraph.stats)."""
        return _rows(graph.stats(ns=ns))

    @app.get(f"{p}/status", tags=["store"])
    def status() -> dict[str, Any]:
        """Backend, URI, node and edge counts, schema version (MemoryGraph.status)."""
        return _rows(graph.status())

    @app.post(f"{p}/cypher", tags=["store"])
    def cypher(body: wire.CypherRequest) -> list[dict[str, Any]]:
        """Run read-only Cypher; a query that writes is refused (ReadOnlyViolation)."""
        return _rows(graph.cypher(body.query, body.params))

    @app.post(f"{p}/query", tags=["store"])
    def query(body: wire.NamedQueryRequest) -> list[dict[str, Any]]:
        """Run a named read-only query from cypher/ (e.g. who_knew/owners_of)."""
        return _rows(graph.query(body.name, body.params))

    @app.get(f"{p}/queries", tags=["store"])
    def query_names() -> list[str]:
        """The names of the named queries of this backend."""
        return graph.query_names()

    @app.post(f"{p}/warm", tags=["store"])
    def warm(body: wire.NamespaceRequest) -> dict[str, str]:
        """Read a namespace into the service's view now, so its first recall is fast."""
        graph.warm(body.ns)
        return {"warmed": body.ns}


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(GraphmemError)
    async def graphmem_error(_request: Request, exc: GraphmemError) -> JSONResponse:
        status = 401 if isinstance(exc, Unauthorized) else wire.status_for(exc)
        return JSONResponse(wire.error_envelope(exc), status_code=status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc'][1:]) or 'body'}: {e['msg']}"
                             for e in exc.errors())
        return JSONResponse(wire.error_envelope(InvalidInput(f"invalid request: {problems}")),
                            status_code=400)

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        # a bug, not the caller's fault: say so in the project's terms, keep the service up
        error = GraphmemError(f"the service failed: {type(exc).__name__}: {exc}")
        return JSONResponse(wire.error_envelope(error), status_code=500)


def openapi_document() -> dict[str, Any]:
    """The service's OpenAPI document, without a store (the routes are not called)."""
    return create_app(None, "unused").openapi()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("graphmem")
    except PackageNotFoundError:
        return "0"

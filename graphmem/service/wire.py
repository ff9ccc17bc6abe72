"""What travels between the service and its clients: request bodies and the error envelope.

Request bodies are plain pydantic models that mirror the keyword arguments of
:class:`graphmem.MemoryGraph`; their values are checked by the same code as in-process
calls (the core's own validation), so a bad deposit gets the same ``InvalidInput`` message
either way. Responses are the public models (``RememberResult``, ``Hit``) or rows.

An error travels as ``{"error": {"type": "InvalidInput", "message": "..."}}`` with the
HTTP status of :func:`status_for`; the client raises the ``graphmem.errors`` class of that
name (:func:`error_class`), so callers catch the same errors as in-process.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from graphmem import errors
from graphmem.models import DEFAULT_NS

#: header that makes a retried write run once; the client sends a fresh one per call
IDEMPOTENCY_HEADER = "Idempotency-Key"
API_PREFIX = "/v1"

When = str | int | float | None  # ISO text, a date, or epoch milliseconds


class RememberRequest(BaseModel):
    agent: str
    text: str
    witnesses: list[str] = Field(default_factory=list)
    told_by: str | None = None
    at: When = None
    place: str | None = None
    domain: str | None = None
    ns: str = DEFAULT_NS
    via: str | None = None
    context: str | None = None
    kind: str = "episodic"
    #: graphmem.security.sign(...) of the operation, where the namespace requires it
    signature: str | None = None


class RememberManyRequest(BaseModel):
    deposits: list[dict[str, Any]]
    ns: str = DEFAULT_NS
    batch: int = Field(default=256, ge=1)


class RecallRequest(BaseModel):
    agent: str
    query: str
    k: int = 10
    ns: str = DEFAULT_NS
    #: a RecallConfig preset name ("HYBRID", "DENSE_ONLY", ...) or a RecallConfig's fields
    config: str | dict[str, Any] | None = None
    expand: bool | None = None
    explain: bool = False
    #: the namespace's read token, or a signed request, where a governed namespace asks
    token: str | None = None
    signature: str | None = None


class AgentRequest(BaseModel):
    agent: str
    kind: str | None = None
    name: str | None = None
    ns: str = DEFAULT_NS
    public_key: str | None = None
    by: str | None = None
    signature: str | None = None


class UnmergeRequest(BaseModel):
    memory_id: str
    ns: str = DEFAULT_NS
    op_id: str | None = None


class OwnersOfRequest(BaseModel):
    text: str
    ns: str = DEFAULT_NS
    limit: int = 100


class KnewAtRequest(BaseModel):
    agent: str
    at: When
    ns: str = DEFAULT_NS
    limit: int = 100


class LearnedFromRequest(BaseModel):
    agent: str
    text: str | None = None
    ns: str = DEFAULT_NS
    limit: int = 100


class SharedMostRequest(BaseModel):
    ns: str = DEFAULT_NS
    limit: int = 10


class CypherRequest(BaseModel):
    """Read-only Cypher: the service never runs a write sent as text."""

    query: str
    params: dict[str, Any] = Field(default_factory=dict)


class NamedQueryRequest(BaseModel):
    name: str
    params: dict[str, Any] = Field(default_factory=dict)


class NamespaceRequest(BaseModel):
    ns: str = DEFAULT_NS


class StrictRequest(BaseModel):
    ns: str
    strict: bool = True


class ErrorBody(BaseModel):
    type: str
    message: str


class ErrorEnvelope(BaseModel):
    error: ErrorBody


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    version: str
    backend: str


# -- errors ------------------------------------------------------------------------

#: most specific first: the first class the error is an instance of gives the status
_STATUS = (
    (errors.Unauthorized, 401),
    (errors.Forbidden, 403),
    (errors.RateLimited, 429),
    (errors.InvalidInput, 400),
    (errors.ConfigError, 400),
    (errors.QueryFailed, 400),
    (errors.StoreUnavailable, 503),
    (errors.LLMError, 502),
    (errors.GraphmemError, 500),
)


def status_for(exc: errors.GraphmemError) -> int:
    """The HTTP status a graphmem error travels with."""
    return next(status for cls, status in _STATUS if isinstance(exc, cls))


def _error_classes() -> dict[str, type[errors.GraphmemError]]:
    found: dict[str, type[errors.GraphmemError]] = {}
    todo = [errors.GraphmemError]
    while todo:
        cls = todo.pop()
        if cls.__module__ == errors.__name__:
            found[cls.__name__] = cls
        todo.extend(cls.__subclasses__())
    return found


def error_class(name: str) -> type[errors.GraphmemError]:
    """The ``graphmem.errors`` class called ``name`` (GraphmemError when unknown)."""
    return _error_classes().get(name, errors.GraphmemError)


def error_envelope(exc: errors.GraphmemError) -> dict[str, Any]:
    """The JSON body of an error response."""
    return {"error": {"type": _nearest_public(type(exc)), "message": str(exc)}}


def _nearest_public(cls: type) -> str:
    # a subclass defined elsewhere travels as the graphmem.errors class it extends
    for base in cls.__mro__:
        if base.__module__ == errors.__name__:
            return base.__name__
    return "GraphmemError"


# -- curation and decay (graphmem.lifecycle through MemoryGraph) ------------------------


class CurationRequest(BaseModel):
    """pin, unpin, forget, unforget, delete: one memory, done by ``by``."""

    memory_id: str
    by: str
    ns: str = DEFAULT_NS


class CorrectRequest(CurationRequest):
    text: str


class ConsolidateRequest(BaseModel):
    memory_ids: list[str]
    by: str
    ns: str = DEFAULT_NS


class TaskRequest(BaseModel):
    agent: str
    task: str
    ns: str = DEFAULT_NS


class AgentNsRequest(BaseModel):
    agent: str
    ns: str = DEFAULT_NS


class DecayRequest(BaseModel):
    ns: str = DEFAULT_NS
    settings: dict[str, float] = Field(default_factory=dict)


class MaintainRequest(BaseModel):
    ns: str = DEFAULT_NS
    now: When = None


class UtilitiesRequest(BaseModel):
    memory_ids: list[str]
    agent: str | None = None
    ns: str = DEFAULT_NS

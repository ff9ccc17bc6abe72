"""Clients of ``graphmem serve``: the methods of MemoryGraph, over HTTP.

    from graphmem import Client
    with Client("http://127.0.0.1:8765", token=...) as memory:   # or Client.from_env()
        memory.remember("ada", "The launch moved to Friday.")
        hits = memory.recall("ada", "When is the launch?")

Each method has the name, arguments and return type of its ``MemoryGraph`` twin and raises
the same ``graphmem.errors`` class. :class:`AsyncClient` has the same methods as
coroutines. Both are written once (:class:`_Methods`); they differ only in how a request is
sent. A call whose connection fails, or that the service answers with 503, is retried with
the same ``Idempotency-Key``, so a write the service already applied is not applied twice.

Imports only httpx, pydantic and graphmem's models and errors: no torch, no store.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from graphmem.errors import (
    ConfigError,
    GraphmemError,
    InvalidInput,
    StoreUnavailable,
    missing,
)
from graphmem.lifecycle.decay import DecaySettings
from graphmem.trust.policy import TrustPolicy
from graphmem.models import DEFAULT_NS, Hit, RememberResult
from graphmem.service import wire
from graphmem.service.server import default_token_file

try:
    import httpx
except ImportError:  # pragma: no cover - httpx comes with langchain-core
    raise missing("httpx", "service") from None

#: failures after which a call is tried again (same idempotency key)
_RETRYABLE = (httpx.TransportError,)
_RETRY_STATUS = {502, 503, 504}


def _when(at: Any) -> Any:
    """A time as JSON can carry it: datetimes and dates as ISO text."""
    return at.isoformat() if isinstance(at, (datetime, date)) else at


def _hits(data: Any) -> list[Hit]:
    return [Hit.model_validate(h) for h in data]


def _results(data: Any) -> list[RememberResult]:
    return [RememberResult.model_validate(r) for r in data]


class _Request:
    """One call: method, path, body, whether it writes, and how to read the answer."""

    __slots__ = ("body", "method", "params", "parse", "path", "write")

    def __init__(self, method: str, path: str, body: Any = None, *, params=None,
                 write: bool = False, parse: Callable[[Any], Any] = lambda d: d) -> None:
        self.method, self.path, self.body, self.params = method, path, body, params
        self.write, self.parse = write, parse


class _Methods:
    """The MemoryGraph methods as requests; a subclass's ``_call`` sends them."""

    def _call(self, request: _Request) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    # -- agents and namespaces -----------------------------------------------------

    def register_agent(self, agent: str, *, kind: str | None = None, name: str | None = None,
                       ns: str = DEFAULT_NS, public_key: str | None = None,
                       by: str | None = None, signature: str | None = None) -> dict:
        """Create or update an agent (``kind``: character, human, ai, service, ...)."""
        return self._call(_Request("POST", "/agents", {
            "agent": agent, "kind": kind, "name": name, "ns": ns, "public_key": public_key,
            "by": by, "signature": signature}, write=True))

    def drop_namespace(self, ns: str) -> None:
        """Delete every node of ``ns``."""
        return self._call(_Request("POST", "/drop_namespace", {"ns": ns}, write=True,
                                   parse=lambda d: None))

    def set_strict(self, ns: str, strict: bool = True) -> None:
        """In a strict namespace, deposits naming unregistered agents are refused."""
        return self._call(_Request("POST", "/set_strict", {"ns": ns, "strict": strict},
                                   write=True, parse=lambda d: None))

    def warm(self, ns: str = DEFAULT_NS) -> None:
        """Read ``ns`` into the service's view now, so its first recall is fast."""
        return self._call(_Request("POST", "/warm", {"ns": ns}, parse=lambda d: None))

    # -- write and read --------------------------------------------------------------

    def remember(self, agent: str, text: str, *, witnesses: Sequence[str] = (),
                 told_by: str | None = None, at: Any = None, place: str | None = None,
                 domain: str | None = None, ns: str = DEFAULT_NS, via: str | None = None,
                 context: str | None = None, kind: str = "episodic",
                 signature: str | None = None) -> RememberResult:
        """Deposit what ``agent`` remembers (see ``MemoryGraph.remember``; sign ``at``
        as you pass it here)."""
        body = {"agent": agent, "text": text, "witnesses": list(witnesses),
                "told_by": told_by, "at": _when(at), "place": place, "domain": domain,
                "ns": ns, "via": via, "context": context, "kind": kind,
                "signature": signature}
        return self._call(_Request("POST", "/remember", body, write=True,
                                   parse=RememberResult.model_validate))

    def remember_many(self, deposits: Sequence[Mapping[str, Any]], *, ns: str = DEFAULT_NS,
                      batch: int = 256) -> list[RememberResult]:
        """``remember`` each deposit, embedded in batches (see ``MemoryGraph.remember_many``)."""
        body = {"deposits": [{**d, "at": _when(d["at"])} if "at" in d else dict(d)
                             for d in deposits], "ns": ns, "batch": batch}
        return self._call(_Request("POST", "/remember_many", body, write=True, parse=_results))

    def recall(self, agent: str, query: str, *, k: int = 10, ns: str = DEFAULT_NS,
               config: Any = None, expand: bool | None = None,
               explain: bool = False, token: str | None = None,
               signature: str | None = None) -> list[Hit]:
        """The ``k`` memories ``agent`` owns that best answer ``query`` (see
        ``MemoryGraph.recall``); ``config`` is a preset name or a RecallConfig."""
        if config is not None and not isinstance(config, str):
            config = config.model_dump(mode="json")
        body = {"agent": agent, "query": query, "k": k, "ns": ns, "config": config,
                "expand": expand, "explain": explain, "token": token, "signature": signature}
        return self._call(_Request("POST", "/recall", body, parse=_hits))

    def unmerge(self, memory_id: str, *, ns: str = DEFAULT_NS, op_id: str | None = None) -> str:
        """Undo the latest (or the given) merge into a memory; returns the restored id."""
        return self._call(_Request("POST", "/unmerge", {"memory_id": memory_id, "ns": ns,
                                                        "op_id": op_id}, write=True,
                                   parse=lambda d: d["restored"]))

    # -- curation and decay -------------------------------------------------------------

    def pin(self, memory_id: str, *, by: str, ns: str = DEFAULT_NS) -> None:
        """Keep ``memory_id`` whatever its utility; logged as done by ``by``."""
        return self._flag("pin", memory_id, by, ns)

    def unpin(self, memory_id: str, *, by: str, ns: str = DEFAULT_NS) -> None:
        """Undo ``pin``."""
        return self._flag("unpin", memory_id, by, ns)

    def forget(self, memory_id: str, *, by: str, ns: str = DEFAULT_NS) -> None:
        """Take ``memory_id`` out of recall (reversible with ``unforget``)."""
        return self._flag("forget", memory_id, by, ns)

    def unforget(self, memory_id: str, *, by: str, ns: str = DEFAULT_NS) -> None:
        """Bring a forgotten memory back into recall."""
        return self._flag("unforget", memory_id, by, ns)

    def delete(self, memory_id: str, *, by: str, ns: str = DEFAULT_NS) -> None:
        """Erase ``memory_id``'s text for a privacy request (a tombstone remains)."""
        return self._flag("delete", memory_id, by, ns)

    def _flag(self, name: str, memory_id: str, by: str, ns: str) -> Any:
        return self._call(_Request("POST", f"/curation/{name}",
                                   {"memory_id": memory_id, "by": by, "ns": ns}, write=True,
                                   parse=lambda d: None))

    def correct(self, memory_id: str, text: str, *, by: str, ns: str = DEFAULT_NS) -> str:
        """A new wording that supersedes ``memory_id`` from now on; returns its id."""
        return self._call(_Request("POST", "/curation/correct",
                                   {"memory_id": memory_id, "text": text, "by": by, "ns": ns},
                                   write=True, parse=lambda d: d["memory_id"]))

    def consolidate(self, memory_ids: Sequence[str], *, by: str, ns: str = DEFAULT_NS) -> str:
        """Several memories become one semantic fact owned by all their owners; its id."""
        return self._call(_Request("POST", "/curation/consolidate",
                                   {"memory_ids": list(memory_ids), "by": by, "ns": ns},
                                   write=True, parse=lambda d: d["memory_id"]))

    def working_memory(self, agent: str, *, ns: str = DEFAULT_NS) -> list[str]:
        """The last memories ``agent`` deposited or recalled through the service."""
        return self._call(_Request("POST", "/decay/working_memory", {"agent": agent, "ns": ns}))

    def set_task(self, agent: str, task: str, *, ns: str = DEFAULT_NS) -> None:
        """What ``agent`` works on now: memories relevant to it score higher."""
        return self._call(_Request("POST", "/decay/task", {"agent": agent, "task": task,
                                                           "ns": ns}, write=True,
                                   parse=lambda d: None))

    def set_decay(self, *, ns: str = DEFAULT_NS, **settings: float) -> DecaySettings:
        """Set ``ns``'s decay parameters; returns them all."""
        return self._call(_Request("POST", "/decay/settings", {"ns": ns, "settings": settings},
                                   write=True, parse=DecaySettings.model_validate))

    def maintain(self, *, ns: str = DEFAULT_NS, now: Any = None) -> dict[str, Any]:
        """Score every memory of ``ns``, consolidate and prune those under the threshold."""
        return self._call(_Request("POST", "/decay/maintain", {"ns": ns, "now": _when(now)},
                                   write=True))

    def utilities(self, memory_ids: Sequence[str], *, agent: str | None = None,
                  ns: str = DEFAULT_NS) -> dict[str, dict[str, float]]:
        """The utility of each memory ({S, R, E, U}) as recall shows it on a hit."""
        return self._call(_Request("POST", "/decay/utilities",
                                   {"memory_ids": list(memory_ids), "agent": agent, "ns": ns}))

    # -- trust between agents (graphmem.governance) ------------------------------------

    def _trust(self, act: str, body: dict[str, Any], *, write: bool = False,
               parse: Callable[[Any], Any] = lambda d: d) -> Any:
        return self._call(_Request("POST", f"/trust/{act}", body, write=write, parse=parse))

    def set_policy(self, *, ns: str = DEFAULT_NS, by: str, signature: str | None = None,
                   **settings: Any) -> TrustPolicy:
        """Govern ``ns`` and set its trust policy (see ``MemoryGraph.set_policy``)."""
        return self._trust("set_policy", {"ns": ns, "by": by, "signature": signature,
                                          **settings}, write=True,
                           parse=TrustPolicy.model_validate)

    def trust_policy(self, *, ns: str = DEFAULT_NS) -> TrustPolicy:
        """``ns``'s trust policy."""
        return self._trust("trust_policy", {"ns": ns}, parse=TrustPolicy.model_validate)

    def set_trust(self, agent: str, score: float, *, domain: str | None = None,
                  ns: str = DEFAULT_NS, by: str, signature: str | None = None) -> dict:
        """Trust ``agent`` at ``score`` in ``domain``; what it touched is re-evaluated."""
        return self._trust("set_trust", {"agent": agent, "score": score, "domain": domain,
                                         "ns": ns, "by": by, "signature": signature},
                           write=True)

    def set_permission(self, agent: str, level: str, *, ns: str = DEFAULT_NS, by: str,
                       signature: str | None = None) -> None:
        """Grant ``agent`` READ, WRITE, ADMIN (or NONE) in ``ns``."""
        return self._trust("set_permission", {"agent": agent, "level": level, "ns": ns,
                                              "by": by, "signature": signature},
                           write=True, parse=lambda d: None)

    def lift_quarantine(self, agent: str, *, ns: str = DEFAULT_NS, by: str,
                        signature: str | None = None) -> None:
        """End ``agent``'s quarantine now."""
        return self._trust("lift_quarantine", {"agent": agent, "ns": ns, "by": by,
                                               "signature": signature},
                           write=True, parse=lambda d: None)

    def revoke(self, agent: str, *, ns: str = DEFAULT_NS, by: str,
               signature: str | None = None) -> dict:
        """Refuse ``agent`` from now on and re-evaluate what it contributed."""
        return self._trust("revoke", {"agent": agent, "ns": ns, "by": by,
                                      "signature": signature}, write=True)

    def confidence(self, memory_id: str, *, ns: str = DEFAULT_NS) -> float:
        """The confidence of ``memory_id`` in [0, 1]."""
        return self._trust("confidence", {"memory_id": memory_id, "ns": ns}, parse=float)

    def replayed_confidence(self, *, ns: str = DEFAULT_NS) -> dict[str, float]:
        """Every memory's confidence recomputed from the event log."""
        return self._trust("replayed_confidence", {"ns": ns})

    def events(self, *, ns: str = DEFAULT_NS, kinds: Sequence[str] | None = None,
               since: Any = None, limit: int = 10_000) -> list[dict]:
        """The event log of ``ns``, oldest first."""
        return self._trust("events", {"ns": ns, "kinds": None if kinds is None else
                                      list(kinds), "since": _when(since), "limit": limit})

    def conflicts(self, *, ns: str = DEFAULT_NS, unresolved: bool = True,
                  limit: int = 1000) -> list[dict]:
        """Contradicting pairs of ``ns``."""
        return self._trust("conflicts", {"ns": ns, "unresolved": unresolved, "limit": limit})

    def resolve_conflict(self, memory_id: str, winner_id: str, *, ns: str = DEFAULT_NS,
                         by: str, signature: str | None = None) -> str:
        """Resolve a conflict for the winner; returns the loser's id."""
        return self._trust("resolve_conflict", {"memory_id": memory_id,
                                                "winner_id": winner_id, "ns": ns, "by": by,
                                                "signature": signature}, write=True)

    def trust_profiles(self, *, ns: str = DEFAULT_NS) -> list[dict]:
        """Every agent's trust profile."""
        return self._trust("trust_profiles", {"ns": ns})

    # -- who knew what, when, from whom ------------------------------------------------

    def owners_of(self, text: str, *, ns: str = DEFAULT_NS, limit: int = 100) -> list[dict]:
        """Who owns the memories whose text contains ``text``, how, from whom, since when."""
        return self._call(_Request("POST", "/who_knew/owners_of",
                                   {"text": text, "ns": ns, "limit": limit}))

    def knew_at(self, agent: str, at: Any, *, ns: str = DEFAULT_NS, limit: int = 100) -> list[dict]:
        """What ``agent`` knew at or before ``at`` (world time), latest first."""
        return self._call(_Request("POST", "/who_knew/knew_at",
                                   {"agent": agent, "at": _when(at), "ns": ns, "limit": limit}))

    def learned_from(self, agent: str, text: str | None = None, *, ns: str = DEFAULT_NS,
                     limit: int = 100) -> list[dict]:
        """From whom ``agent`` learned what it was told (optionally about ``text``)."""
        return self._call(_Request("POST", "/who_knew/learned_from",
                                   {"agent": agent, "text": text, "ns": ns, "limit": limit}))

    def shared_most(self, *, ns: str = DEFAULT_NS, limit: int = 10) -> list[dict]:
        """Pairs of agents sharing the most memories."""
        return self._call(_Request("POST", "/who_knew/shared_most", {"ns": ns, "limit": limit}))

    # -- store -----------------------------------------------------------------------

    def stats(self, *, ns: str = DEFAULT_NS) -> dict[str, Any]:
        """Structure metrics of a namespace (see ``MemoryGraph.stats``); the recall
        amplification figures are the service's."""
        return self._call(_Request("GET", "/stats", params={"ns": ns}))

    def status(self) -> dict[str, Any]:
        """Backend, URI, node and edge counts by label and type, schema version."""
        return self._call(_Request("GET", "/status"))

    def cypher(self, query: str, params: Mapping[str, Any] | None = None, *,
               write: bool = False) -> list[dict]:
        """Run read-only Cypher on the service; it runs no writes sent as text."""
        if write:
            raise InvalidInput("the service runs read-only Cypher only; use its methods "
                               "to write, or open the store in-process")
        return self._call(_Request("POST", "/cypher", {"query": query,
                                                       "params": dict(params or {})}))

    def query(self, name: str, params: Mapping[str, Any] | None = None, *,
              write: bool = False) -> list[dict]:
        """Run a named read-only query from ``cypher/`` (e.g. ``"who_knew/owners_of"``)."""
        if write:
            raise InvalidInput("the service runs read-only named queries only")
        return self._call(_Request("POST", "/query", {"name": name,
                                                      "params": dict(params or {})}))

    def query_names(self) -> list[str]:
        """The names of the service's named queries."""
        return self._call(_Request("GET", "/queries"))

    def health(self) -> dict[str, Any]:
        """``{"status": "ok", "version": ..., "backend": ...}`` when the service is up."""
        return self._call(_Request("GET", "/health"))


def _settings(url: str | None, token: str | None) -> tuple[str, str]:
    url = url or os.environ.get("GRAPHMEM_SERVER")
    if not url:
        raise ConfigError("no service URL: pass one or set GRAPHMEM_SERVER "
                          "(e.g. http://127.0.0.1:8765)")
    token = token or os.environ.get("GRAPHMEM_TOKEN")
    if not token:
        path = default_token_file()
        try:
            token = Path(path).read_text().strip()
        except OSError:
            raise ConfigError(f"no token: set GRAPHMEM_TOKEN, or GRAPHMEM_TOKEN_FILE to the "
                              f"file `graphmem serve` wrote (looked in {path})") from None
    return url.rstrip("/"), token


def _raise_for(response: httpx.Response) -> None:
    try:
        error = response.json()["error"]
        cls, message = wire.error_class(error["type"]), error["message"]
    except (ValueError, KeyError, TypeError):
        cls, message = GraphmemError, f"the service answered {response.status_code}: {response.text[:300]}"
    raise cls(message)


def _unreachable(url: str, exc: Exception) -> StoreUnavailable:
    return StoreUnavailable(f"the graphmem service at {url} is not reachable ({exc!r}); start "
                            "it with `graphmem serve`, or unset GRAPHMEM_SERVER")


class _Base(_Methods):
    def __init__(self, url: str | None = None, token: str | None = None, *,
                 timeout: float = 120.0, retries: int = 3, backoff: float = 0.1) -> None:
        self.url, self._token = _settings(url, token)
        self.timeout, self.retries, self.backoff = timeout, retries, backoff

    @classmethod
    def from_env(cls, **options: Any):
        """The service ``GRAPHMEM_SERVER`` names, with ``GRAPHMEM_TOKEN`` (or the token file)."""
        return cls(**options)

    def _prepare(self, request: _Request) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self._token}"}
        if request.write:  # one key for every try of this call
            headers[wire.IDEMPOTENCY_HEADER] = uuid.uuid4().hex
        return {"method": request.method, "url": self.url + wire.API_PREFIX + request.path,
                "json": request.body, "params": request.params, "headers": headers}

    def _answer(self, request: _Request, response: httpx.Response) -> Any:
        if response.is_success:
            return request.parse(response.json())
        _raise_for(response)

    def _delay(self, attempt: int) -> float:
        return min(self.backoff * 2 ** attempt, 2.0)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"


class Client(_Base):
    """A MemoryGraph in another process: same methods, same results, same errors."""

    is_async = False

    def __init__(self, url: str | None = None, token: str | None = None, *,
                 timeout: float = 120.0, retries: int = 3, backoff: float = 0.1,
                 transport: httpx.BaseTransport | None = None) -> None:
        super().__init__(url, token, timeout=timeout, retries=retries, backoff=backoff)
        self._http = httpx.Client(timeout=timeout, transport=transport)

    def _call(self, request: _Request) -> Any:
        sent = self._prepare(request)
        for attempt in range(self.retries + 1):
            try:
                response = self._http.request(**sent)
            except _RETRYABLE as exc:
                if attempt == self.retries:
                    raise _unreachable(self.url, exc) from None
            else:
                if response.status_code not in _RETRY_STATUS or attempt == self.retries:
                    return self._answer(request, response)
            time.sleep(self._delay(attempt))

    def close(self) -> None:
        """Close the connections (the service keeps running)."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient(_Base):
    """:class:`Client` with every method a coroutine (``await memory.recall(...)``)."""

    is_async = True  # adapters (graphmem.integrations) await its methods

    def __init__(self, url: str | None = None, token: str | None = None, *,
                 timeout: float = 120.0, retries: int = 3, backoff: float = 0.1,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        super().__init__(url, token, timeout=timeout, retries=retries, backoff=backoff)
        self._http = httpx.AsyncClient(timeout=timeout, transport=transport)

    async def _call(self, request: _Request) -> Any:
        sent = self._prepare(request)
        for attempt in range(self.retries + 1):
            try:
                response = await self._http.request(**sent)
            except _RETRYABLE as exc:
                if attempt == self.retries:
                    raise _unreachable(self.url, exc) from None
            else:
                if response.status_code not in _RETRY_STATUS or attempt == self.retries:
                    return self._answer(request, response)
            await asyncio.sleep(self._delay(attempt))

    async def aclose(self) -> None:
        """Close the connections (the service keeps running)."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

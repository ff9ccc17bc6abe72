"""The MCP tools as plain functions: what each does with the memory for one identity.

Kept apart from the SDK so that the rules (who acts, what a tool may see) read in one
place and are testable without a transport. ``memory`` is anything with MemoryGraph's
methods (a ``MemoryGraph`` or a ``graphmem.Client``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from graphmem.errors import InvalidInput

CURATION = ("pin", "unpin", "forget", "unforget")
MAX_K = 50
MAX_ROWS = 200


@dataclass
class Identity:
    """Who acts through this server and where: fixed by configuration, not by the model."""

    agent: str
    ns: str
    #: who-knew and Cypher tools read beyond the agent's own memories (other agents'
    #: ownership, any namespace); off for servers that must keep agents apart
    audit: bool = True
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if not self.agent or not self.agent.strip():
            raise InvalidInput("the MCP server needs the acting agent: --agent NAME or "
                               "GRAPHMEM_AGENT")


def remember(memory, me: Identity, text: str, *, told_by: str | None = None,
             at: str | None = None, place: str | None = None,
             context: str | None = None) -> dict[str, Any]:
    with me.lock:
        result = memory.remember(me.agent, text, told_by=told_by, at=at, place=place,
                                 context=context, ns=me.ns)
    return {"deposit_id": result.deposit_id,
            "statements": [{"memory_id": a.memory_id, "text": a.text, "action": a.action,
                            "contradicts": a.contradicts} for a in result.atoms]}


def recall(memory, me: Identity, query: str, *, k: int = 10,
           explain: bool = False) -> list[dict[str, Any]]:
    if not 1 <= k <= MAX_K:
        raise InvalidInput(f"k must be between 1 and {MAX_K}, got {k}")
    with me.lock:
        hits = memory.recall(me.agent, query, k=k, ns=me.ns, explain=explain)
    keep = ("memory_id", "text", "score", "found_by", "owners", "asserted_by", "conflicts",
            "t") + (("channels", "explain") if explain else ())
    return [h.model_dump(mode="json", include=set(keep)) for h in hits]


def curate(memory, me: Identity, action: str, memory_id: str) -> dict[str, Any]:
    """pin, unpin, forget or unforget one of the agent's own memories, as the agent."""
    if action not in CURATION:
        raise InvalidInput(f"unknown curation {action!r}; choose from {', '.join(CURATION)}")
    with me.lock:
        _own(memory, me, memory_id)
        getattr(memory, action)(memory_id, by=me.agent, ns=me.ns)
    return {"memory_id": memory_id, "done": action}


def correct(memory, me: Identity, memory_id: str, text: str) -> dict[str, Any]:
    """A new wording of one of the agent's own memories; returns the new memory's id."""
    with me.lock:
        _own(memory, me, memory_id)
        return {"memory_id": memory.correct(memory_id, text, by=me.agent, ns=me.ns),
                "supersedes": memory_id}


def _own(memory, me: Identity, memory_id: str) -> None:
    rows = memory.query("catalog/owns", {"ns": me.ns, "agent": me.agent, "memory": memory_id})
    if not rows or not rows[0]["owns"]:
        raise InvalidInput(f"{me.agent} does not own memory {memory_id!r}; an agent curates "
                           "only its own memories")


def owners_of(memory, me: Identity, text: str, limit: int = 50) -> list[dict[str, Any]]:
    _audit(me)
    with me.lock:
        return memory.owners_of(text, ns=me.ns, limit=_limit(limit))


def knew_at(memory, me: Identity, at: str, agent: str | None = None,
            limit: int = 50) -> list[dict[str, Any]]:
    if agent not in (None, me.agent):
        _audit(me)
    with me.lock:
        return memory.knew_at(agent or me.agent, at, ns=me.ns, limit=_limit(limit))


def learned_from(memory, me: Identity, about: str | None = None, agent: str | None = None,
                 limit: int = 50) -> list[dict[str, Any]]:
    if agent not in (None, me.agent):
        _audit(me)
    with me.lock:
        return memory.learned_from(agent or me.agent, about, ns=me.ns, limit=_limit(limit))


def shared_most(memory, me: Identity, limit: int = 10) -> list[dict[str, Any]]:
    _audit(me)
    with me.lock:
        return memory.shared_most(ns=me.ns, limit=_limit(limit))


def cypher(memory, me: Identity, query: str,
           params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    _audit(me)
    with me.lock:  # read-only: the store runs it as a read query and refuses writes
        rows = memory.cypher(query, {"ns": me.ns, **(params or {})})
    return rows[:MAX_ROWS]


def stats(memory, me: Identity) -> dict[str, Any]:
    with me.lock:
        return memory.stats(ns=me.ns)


def namespaces(memory, me: Identity) -> list[dict[str, Any]]:
    with me.lock:
        rows = memory.query("catalog/namespaces", {"limit": MAX_ROWS})
    return rows if me.audit else [r for r in rows if r["ns"] == me.ns]


def agents(memory, me: Identity, ns: str) -> list[dict[str, Any]]:
    if ns != me.ns:
        _audit(me)
    with me.lock:
        return memory.query("catalog/agents", {"ns": ns, "limit": MAX_ROWS})


def _audit(me: Identity) -> None:
    if not me.audit:
        raise InvalidInput("this server was started with --no-audit: it answers only about "
                           f"{me.agent}'s own memories")


def _limit(limit: int) -> int:
    if not 1 <= limit <= MAX_ROWS:
        raise InvalidInput(f"limit must be between 1 and {MAX_ROWS}, got {limit}")
    return limit

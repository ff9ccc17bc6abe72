"""The MCP server: graphmem's tools and resources on the official SDK's ``MCPServer``.

Every tool acts for the identity the server was started with (see
:class:`graphmem.mcp.tools.Identity`). A graphmem error becomes a tool error whose text
is the error's message, so the model can read what was wrong and correct its call.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from graphmem.errors import GraphmemError, missing
from graphmem.mcp import tools
from graphmem.mcp.tools import Identity

INSTRUCTIONS = """\
Long-term memory shared between agents. You act as agent {agent} in namespace {ns}.
Call `recall` before answering questions about the past, people or preferences; call
`remember` with short self-contained statements worth keeping (who, what, when).
Recall only sees memories you own; others come to own a memory by depositing the same
fact. Hits carry their owners and any conflicting memories: mention conflicts."""


def build_server(memory: Any, me: Identity):
    """An ``MCPServer`` whose tools read and write ``memory`` as ``me``."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        from mcp.types import ToolAnnotations
    except ImportError:
        raise missing("mcp", "mcp") from None

    server = MCPServer("graphmem", instructions=INSTRUCTIONS.format(agent=me.agent, ns=me.ns),
                       version=_version(), log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    def tool(fn: Callable, *, writes: bool = False):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except GraphmemError as exc:
                raise ToolError(str(exc)) from exc

        annotations = (ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                       idempotent_hint=False, open_world_hint=False)
                       if writes else read_only)
        return server.tool(annotations=annotations)(run)

    _memory_tools(tool, memory, me)
    if me.audit:
        _audit_tools(tool, memory, me)
    _resources(server, memory, me)
    return server


def _memory_tools(tool, memory: Any, me: Identity) -> None:
    def remember(text: str, told_by: str | None = None, at: str | None = None,
                 place: str | None = None, context: str | None = None) -> dict[str, Any]:
        """Remember a statement as your own memory. Equivalent memories of other agents
        are merged with it (you become an owner), nothing is duplicated. `told_by`: the
        agent you learned it from; `at`: when it happened (ISO date or time, or a date
        such as "8 May 2023"); `context`: what it answers (indexed, not remembered)."""
        return tools.remember(memory, me, text, told_by=told_by, at=at, place=place,
                              context=context)

    def recall(query: str, k: int = 10, explain: bool = False) -> list[dict[str, Any]]:
        """The k memories you own that best answer `query`, best first, each with its
        owners, who asserted it and conflicting memories. `explain` adds each hit's rank
        in every retrieval channel and the query's kind and channel weights."""
        return tools.recall(memory, me, query, k=k, explain=explain)

    def stats() -> dict[str, Any]:
        """Structure of this namespace's memory: entries, share owned by several agents,
        share linked to others, deepest merge, contradictions."""
        return tools.stats(memory, me)

    def curate(memory_id: str, action: str) -> dict[str, Any]:
        """Curate one of your own memories: `action` is "pin" (keep it whatever its
        utility), "unpin", "forget" (out of recall, reversible) or "unforget"."""
        return tools.curate(memory, me, action, memory_id)

    def correct(memory_id: str, text: str) -> dict[str, Any]:
        """Replace one of your memories with a corrected wording from now on; the old one
        leaves recall but stays for the record. Returns the new memory's id."""
        return tools.correct(memory, me, memory_id, text)

    tool(remember, writes=True)
    tool(recall)
    tool(stats)
    tool(curate, writes=True)
    tool(correct, writes=True)


def _audit_tools(tool, memory: Any, me: Identity) -> None:
    def who_knew_owners(text: str, limit: int = 50) -> list[dict[str, Any]]:
        """Who owns the memories whose text contains `text`: each owner, how they came
        to know it (witnessed, told), from whom, and since when (epoch ms)."""
        return tools.owners_of(memory, me, text, limit)

    def who_knew_at(at: str, agent: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """What `agent` (default: you) knew at or before time `at`, latest first."""
        return tools.knew_at(memory, me, at, agent, limit)

    def who_knew_learned_from(about: str | None = None, agent: str | None = None,
                              limit: int = 50) -> list[dict[str, Any]]:
        """From whom `agent` (default: you) learned what it was told, optionally only
        memories whose text contains `about`."""
        return tools.learned_from(memory, me, about, agent, limit)

    def who_knew_shared_most(limit: int = 10) -> list[dict[str, Any]]:
        """Pairs of agents that share the most memories in this namespace."""
        return tools.shared_most(memory, me, limit)

    def cypher(query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a read-only Cypher query on the memory graph (writes are refused). `$ns`
        is this namespace. Nodes: Agent, Memory, Entity, StoryArc (all with ns, id);
        (:Agent)-[:OWNS {via, from, since}]->(:Memory {text, t}), (:Memory)-[:AFFILIATED]-
        (:Memory), (:Memory)-[:CONTRADICTS]->(:Memory), (:Memory)-[:MENTIONS]->(:Entity).
        Return properties, not whole nodes (embeddings are large)."""
        return tools.cypher(memory, me, query, params)

    for fn in (who_knew_owners, who_knew_at, who_knew_learned_from, who_knew_shared_most,
               cypher):
        tool(fn)


def _resources(server, memory: Any, me: Identity) -> None:
    @server.resource("graphmem://me", name="identity", mime_type="application/json",
                     description="The agent and namespace this server acts for.")
    def identity() -> str:
        return json.dumps({"agent": me.agent, "ns": me.ns, "audit": me.audit})

    @server.resource("graphmem://namespaces", name="namespaces", mime_type="application/json",
                     description="Namespaces of the store with their agent and memory counts.")
    def namespaces() -> str:
        return json.dumps(tools.namespaces(memory, me), default=str)

    @server.resource("graphmem://namespaces/{ns}/agents", name="agents",
                     mime_type="application/json",
                     description="Agents of a namespace: kind, name, memories owned.")
    def agents(ns: str) -> str:
        return json.dumps(tools.agents(memory, me, ns), default=str)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("graphmem")
    except PackageNotFoundError:
        return "0"

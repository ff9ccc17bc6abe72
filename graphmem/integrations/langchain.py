"""graphmem for LangChain: a retriever and two tools, each bound to one agent.

    from graphmem.integrations.langchain import GraphmemRetriever, memory_tools
    retriever = GraphmemRetriever(memory=graph, agent="ada")        # drop-in retriever
    tools = memory_tools(graph, agent="ada")                         # remember, recall

``memory`` is a ``MemoryGraph`` or a ``graphmem.Client`` (or ``AsyncClient``: the async
methods then await it instead of using a worker thread). Documents carry the memory's
id, score, owners, who asserted it, its conflicts, the channels that found it and its
time in their metadata. The tools take no agent argument: a model calling them cannot
act as another agent.
"""

from __future__ import annotations

import asyncio
from typing import Any

from graphmem.errors import missing
from graphmem.models import DEFAULT_NS, Hit

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.tools import StructuredTool
    from pydantic import BaseModel, ConfigDict, Field
except ImportError:  # pragma: no cover - langchain-core is a core dependency
    raise missing("langchain-core", "langchain") from None


def hit_document(hit: Hit, ns: str) -> Document:
    """A recalled memory as a LangChain Document (authorship in the metadata)."""
    return Document(id=hit.memory_id, page_content=hit.text, metadata={
        "memory_id": hit.memory_id, "ns": ns, "score": hit.score, "owners": hit.owners,
        "asserted_by": hit.asserted_by, "conflicts": hit.conflicts, "found_by": hit.found_by,
        "channels": hit.channels, "t": hit.t.isoformat() if hit.t else None,
        **({"explain": hit.explain} if hit.explain else {})})


def _is_async(memory: Any) -> bool:
    """Whether ``memory``'s methods return awaitables (an AsyncClient)."""
    return bool(getattr(memory, "is_async", False))


class GraphmemRetriever(BaseRetriever):
    """The ``k`` memories ``agent`` owns in ``ns`` that best answer the query."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Any = Field(description="A MemoryGraph, Client or AsyncClient.")
    agent: str
    ns: str = DEFAULT_NS
    k: int = 10
    explain: bool = False

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        if _is_async(self.memory):
            raise TypeError("this retriever holds an AsyncClient: call ainvoke()")
        hits = self.memory.recall(self.agent, query, k=self.k, ns=self.ns, explain=self.explain)
        return [hit_document(h, self.ns) for h in hits]

    async def _aget_relevant_documents(
            self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun) -> list[Document]:
        recall = (self.memory.recall if _is_async(self.memory)
                  else lambda *a, **kw: asyncio.to_thread(self.memory.recall, *a, **kw))
        hits = await recall(self.agent, query, k=self.k, ns=self.ns, explain=self.explain)
        return [hit_document(h, self.ns) for h in hits]


class RememberArgs(BaseModel):
    text: str = Field(description="A short, self-contained statement worth keeping.")
    told_by: str | None = Field(default=None, description="Who you learned it from.")
    at: str | None = Field(default=None, description="When it happened (ISO date or time).")


class RecallArgs(BaseModel):
    query: str = Field(description="What you want to remember, as a question.")


def memory_tools(memory: Any, agent: str, *, ns: str = DEFAULT_NS,
                 k: int = 5) -> list[StructuredTool]:
    """``remember`` and ``recall`` tools that act as ``agent`` in ``ns``."""
    return [remember_tool(memory, agent, ns=ns), recall_tool(memory, agent, ns=ns, k=k)]


def remember_tool(memory: Any, agent: str, *, ns: str = DEFAULT_NS) -> StructuredTool:
    """A tool that deposits a statement as ``agent``'s memory."""

    def summary(result) -> str:
        return "; ".join(f"{a.action} {a.memory_id}: {a.text}" for a in result.atoms)

    def remember(text: str, told_by: str | None = None, at: str | None = None) -> str:
        return summary(memory.remember(agent, text, told_by=told_by, at=at, ns=ns))

    async def aremember(text: str, told_by: str | None = None, at: str | None = None) -> str:
        call = (memory.remember(agent, text, told_by=told_by, at=at, ns=ns) if _is_async(memory)
                else asyncio.to_thread(memory.remember, agent, text, told_by=told_by, at=at, ns=ns))
        return summary(await call)

    return StructuredTool.from_function(
        func=None if _is_async(memory) else remember, coroutine=aremember, name="remember",
        args_schema=RememberArgs,
        description="Remember a statement in your long-term memory (shared with agents who "
                    "know the same fact).")


def recall_tool(memory: Any, agent: str, *, ns: str = DEFAULT_NS, k: int = 5) -> StructuredTool:
    """A tool that recalls what ``agent`` remembers about a question."""

    def render(hits: list[Hit]) -> str:
        if not hits:
            return "No memories found."
        lines = []
        for h in hits:
            line = f"- {h.text} (owners: {', '.join(h.owners)}"
            line += f"; conflicts with: {', '.join(h.conflicts)})" if h.conflicts else ")"
            lines.append(line)
        return "\n".join(lines)

    def recall(query: str) -> str:
        return render(memory.recall(agent, query, k=k, ns=ns))

    async def arecall(query: str) -> str:
        call = (memory.recall(agent, query, k=k, ns=ns) if _is_async(memory)
                else asyncio.to_thread(memory.recall, agent, query, k=k, ns=ns))
        return render(await call)

    return StructuredTool.from_function(
        func=None if _is_async(memory) else recall, coroutine=arecall, name="recall",
        args_schema=RecallArgs,
        description="Recall what you remember that answers a question, with who else knows it.")

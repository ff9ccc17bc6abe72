"""The LangChain retriever and tools on a real store, with the real langchain-core."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.retrievers import BaseRetriever

from graphmem.integrations.langchain import GraphmemRetriever, memory_tools


@pytest.fixture
def graph(embedded_graph):
    embedded_graph.remember("ada", "The launch moved to Friday.", witnesses=["grace"],
                            at="2024-05-08")
    embedded_graph.remember("bob", "The cafeteria closes at three.")
    return embedded_graph


def test_the_retriever_is_a_langchain_retriever_scoped_to_its_agent(graph):
    retriever = GraphmemRetriever(memory=graph, agent="grace", k=3)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke("When is the launch?")
    assert docs and all(isinstance(d, Document) for d in docs)
    assert docs[0].page_content == "The launch moved to Friday."
    meta = docs[0].metadata
    assert set(meta["owners"]) == {"ada", "grace"} and meta["conflicts"] == []
    assert meta["score"] > 0 and meta["memory_id"] == docs[0].id and meta["t"].startswith("2024-05")
    # grace does not own bob's memory, so it is never returned to her
    assert all("cafeteria" not in d.page_content for d in retriever.invoke("cafeteria hours"))


def test_the_retriever_reports_conflicts(graph):
    graph.remember("grace", "The launch did not move to Friday.", at="2024-05-08")
    docs = GraphmemRetriever(memory=graph, agent="grace").invoke("Did the launch move?")
    flagged = [d for d in docs if d.metadata["conflicts"]]
    assert flagged, [d.metadata for d in docs]


def test_the_retriever_works_async(graph):
    retriever = GraphmemRetriever(memory=graph, agent="ada", explain=True)
    docs = asyncio.run(retriever.ainvoke("When is the launch?"))
    assert docs[0].metadata["explain"]["weights"]


def test_tools_act_as_their_agent_only(graph):
    remember, recall = memory_tools(graph, agent="carol")
    assert {t.name for t in (remember, recall)} == {"remember", "recall"}
    for tool in (remember, recall):
        assert "agent" not in tool.args
    out = remember.invoke({"text": "The gate code is 4412.", "agent": "mallory"})
    assert out.startswith("created")
    assert [r["agent"] for r in graph.owners_of("gate code")] == ["carol"]
    assert "The gate code is 4412. (owners: carol)" in recall.invoke({"query": "gate code?"})
    assert "launch" not in recall.invoke({"query": "When is the launch?"})  # not carol's


def test_a_chat_models_tool_call_runs_against_memory(graph):
    """What an agent loop does: the model asks for a tool, the tool answers from memory."""
    from langchain_core.language_models.fake_chat_models import (
        FakeMessagesListChatModel,
    )

    _, recall = memory_tools(graph, agent="grace")
    model = FakeMessagesListChatModel(responses=[AIMessage(content="", tool_calls=[
        {"name": "recall", "args": {"query": "When is the launch?"}, "id": "call-1"}])])
    answer = recall.invoke(model.invoke("When is the launch?").tool_calls[0])
    assert isinstance(answer, ToolMessage) and "Friday" in answer.content

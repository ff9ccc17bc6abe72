"""The LangChain adapters over the shared service, with Client and AsyncClient."""

from __future__ import annotations

import asyncio

from graphmem.integrations.langchain import GraphmemRetriever, memory_tools
from graphmem.service.client import AsyncClient
from tests.service.conftest import client, service  # noqa: F401  (shared fixtures)


def test_retriever_and_tools_over_client(client):  # noqa: F811
    remember, _ = memory_tools(client, agent="dana", ns="lc-service")
    remember.invoke({"text": "The printer on floor two is broken."})
    docs = GraphmemRetriever(memory=client, agent="dana", ns="lc-service").invoke("printer?")
    assert docs[0].page_content == "The printer on floor two is broken."
    assert docs[0].metadata["owners"] == ["dana"] and docs[0].metadata["ns"] == "lc-service"


def test_retriever_and_tools_over_async_client(service):  # noqa: F811
    async def scenario():
        async with AsyncClient(service.url, service.token) as memory:
            remember, recall = memory_tools(memory, agent="eve", ns="lc-async")
            await remember.ainvoke({"text": "The boiler was serviced in March."})
            retriever = GraphmemRetriever(memory=memory, agent="eve", ns="lc-async")
            return await retriever.ainvoke("When was the boiler serviced?"), \
                await recall.ainvoke({"query": "boiler"})

    docs, text = asyncio.run(scenario())
    assert docs[0].page_content == "The boiler was serviced in March."
    assert "(owners: eve)" in text

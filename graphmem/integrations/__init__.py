"""Adapters that let agent frameworks use graphmem as their memory.

    langchain.py  GraphmemRetriever (a langchain-core BaseRetriever) and remember / recall
                  tools bound to one agent
    langgraph.py  GraphmemStore, a LangGraph BaseStore (put / get / search / delete)
                  backed by graphmem (the ``langgraph`` extra)

Each adapter takes ``memory``: anything with MemoryGraph's methods, an in-process
``MemoryGraph`` or a ``graphmem.Client`` of the shared service. The agent an adapter acts
for is fixed when it is built, never read from what a model fills in.

May import: the public API (``graphmem.api``, ``graphmem.models``, ``graphmem.errors``),
langchain-core, langgraph. The core never imports this package.
"""

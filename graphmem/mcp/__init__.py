"""``graphmem mcp``: graphmem's memory as an MCP server, for MCP-capable assistants.

Owns the MCP tools (remember, recall, who-knew, read-only Cypher, stats) and resources
(namespaces, agents, the acting identity), served over stdio or streamable HTTP with the
official ``mcp`` SDK (2.x, the ``mcp`` extra).

The acting agent is fixed when the server starts (``--agent`` / ``GRAPHMEM_AGENT``) and no
tool takes an agent argument for writing or recalling: a model cannot remember or recall
as another agent by filling in a field. The memory behind it is an in-process
``MemoryGraph`` or, with ``GRAPHMEM_SERVER`` set, a client of the shared service (then
the MCP process loads no model).

May import: the public API (``graphmem.api``, ``graphmem.models``, ``graphmem.errors``),
``graphmem.service.client`` and the ``mcp`` SDK. The core never imports this package.

    tools.py     the memory operations as plain functions of (memory, identity, ...)
    server.py    the MCPServer: tools and resources registered over tools.py
    commands.py  the ``graphmem mcp`` CLI command
"""

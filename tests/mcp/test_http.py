"""``graphmem mcp --transport http`` backed by the shared service, with a real MCP client."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

import httpx
import pytest

pytest.importorskip("mcp", reason='the MCP SDK is not installed: pip install "graphmem[mcp]"')

from tests.service.conftest import client, service  # noqa: F401  (shared fixtures)

TOKEN = "mcp-test-token"


@pytest.fixture(scope="module")
def mcp_url(service):  # noqa: F811
    env = {**os.environ, "GRAPHMEM_SERVER": service.url, "GRAPHMEM_TOKEN": service.token,
           "GRAPHMEM_MCP_TOKEN": TOKEN}
    process = subprocess.Popen(
        [sys.executable, "-c", "from graphmem.cli import main; main()", "mcp", "--agent", "bob",
         "--ns", "mcp-http", "--transport", "http", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(60)
    try:
        assert line and "serving on " in line[0], line
        yield line[0].split("serving on ", 1)[1].split()[0]
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_http_needs_the_token(mcp_url):
    assert httpx.post(mcp_url, json={}).status_code == 401


def test_tools_over_http_write_through_the_service_as_the_configured_agent(mcp_url, client):  # noqa: F811
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def scenario():
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
        async with http, Client(streamable_http_client(mcp_url, http_client=http)) as mcp:
            await mcp.call_tool("remember", {"text": "The archive closes at six."})
            return await mcp.call_tool("recall", {"query": "When does the archive close?"})

    found = asyncio.run(scenario())
    assert not found.is_error
    assert found.structured_content["result"][0]["owners"] == ["bob"]
    owners = client.owners_of("archive", ns="mcp-http")
    assert [r["agent"] for r in owners] == ["bob"]

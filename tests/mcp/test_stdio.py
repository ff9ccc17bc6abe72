"""A real MCP client (the SDK's, over stdio) against ``graphmem mcp`` in a subprocess."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest

pytest.importorskip("mcp", reason='the MCP SDK is not installed: pip install "graphmem[mcp]"')

from mcp import Client, StdioServerParameters


def server_params(data_dir, *args: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k not in ("GRAPHMEM_SERVER", "GRAPHMEM_URI")}
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", "from graphmem.cli import main; main()", "--data-dir", str(data_dir),
              "mcp", *args],
        env={**env, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})


def structured(result):
    assert not result.is_error, result.content
    data = result.structured_content
    return data["result"] if set(data) == {"result"} else data


async def session_checks(params) -> dict:
    seen = {}
    async with Client(params, read_timeout_seconds=120) as client:
        seen["tools"] = {t.name: t for t in (await client.list_tools()).tools}
        done = structured(await client.call_tool(
            "remember", {"text": "Grace moved the launch to Friday.", "at": "2024-05-08"}))
        seen["remember"] = done
        seen["recall"] = structured(await client.call_tool(
            "recall", {"query": "When is the launch?", "explain": True}))
        # the agent comes from configuration: an "agent" argument the model adds is ignored
        seen["spoof"] = await client.call_tool(
            "remember", {"text": "The vault code is 4512.", "agent": "mallory"})
        seen["spoof_owners"] = structured(await client.call_tool(
            "who_knew_owners", {"text": "vault code"}))
        seen["bad"] = await client.call_tool("remember", {"text": "   "})
        seen["write_cypher"] = await client.call_tool("cypher", {"query": "CREATE (:Agent {ns: 'x', id: 'y'})"})
        seen["owners"] = structured(await client.call_tool("who_knew_owners", {"text": "launch"}))
        seen["stats"] = structured(await client.call_tool("stats", {}))
        seen["count"] = structured(await client.call_tool(
            "cypher", {"query": "MATCH (m:Memory {ns: $ns}) RETURN count(m) AS n"}))
        launch = seen["recall"][0]["memory_id"]
        seen["forget"] = structured(await client.call_tool(
            "curate", {"memory_id": launch, "action": "forget"}))
        seen["after_forget"] = structured(await client.call_tool(
            "recall", {"query": "When is the launch?"}))
        seen["unforget"] = structured(await client.call_tool(
            "curate", {"memory_id": launch, "action": "unforget"}))
        seen["not_mine"] = await client.call_tool(
            "curate", {"memory_id": "m-not-mine", "action": "pin"})
        me = await client.read_resource("graphmem://me")
        seen["me"] = json.loads(me.contents[0].text)
        agents = await client.read_resource("graphmem://namespaces/default/agents")
        seen["agents"] = json.loads(agents.contents[0].text)
        namespaces = await client.read_resource("graphmem://namespaces")
        seen["namespaces"] = json.loads(namespaces.contents[0].text)
    return seen


@pytest.fixture(scope="module")
def seen(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("mcp") / "data"
    return asyncio.run(session_checks(server_params(data_dir, "--agent", "ada")))


def test_tools_are_offered_without_an_agent_argument(seen):
    assert {"remember", "recall", "stats", "curate", "correct", "who_knew_owners", "who_knew_at",
            "who_knew_learned_from", "who_knew_shared_most", "cypher"} <= set(seen["tools"])
    for tool in seen["tools"].values():
        assert "agent" not in tool.input_schema.get("properties", {}) or tool.name in (
            "who_knew_at", "who_knew_learned_from")  # read-only audit of another agent
    assert seen["tools"]["recall"].annotations.read_only_hint is True
    assert seen["tools"]["remember"].annotations.read_only_hint is False


def test_remember_and_recall_act_as_the_configured_agent(seen):
    assert seen["remember"]["statements"][0]["action"] == "created"
    hit = seen["recall"][0]
    assert hit["text"] == "Grace moved the launch to Friday."
    assert hit["owners"] == ["ada"] and "weights" in hit["explain"]
    assert seen["owners"][0]["agent"] == "ada"
    assert seen["me"] == {"agent": "ada", "ns": "default", "audit": True}
    assert [a["agent"] for a in seen["agents"]] == ["ada"]
    assert seen["namespaces"][0]["ns"] == "default"


def test_a_model_cannot_act_as_another_agent(seen):
    assert not seen["spoof"].is_error
    assert [row["agent"] for row in seen["spoof_owners"]] == ["ada"]
    assert [a["agent"] for a in seen["agents"]] == ["ada"]


def test_an_agent_curates_its_own_memories_only(seen):
    assert seen["forget"] == {"memory_id": seen["recall"][0]["memory_id"], "done": "forget"}
    assert all("launch" not in h["text"] for h in seen["after_forget"])
    assert seen["unforget"]["done"] == "unforget"
    assert seen["not_mine"].is_error and "does not own" in seen["not_mine"].content[0].text


def test_bad_input_and_writes_are_refused_with_the_reason(seen):
    assert seen["bad"].is_error and "text is empty" in seen["bad"].content[0].text
    assert seen["write_cypher"].is_error and "read-only" in seen["write_cypher"].content[0].text
    assert seen["stats"]["entries"] == 2 and seen["count"] == [{"n": 2}]

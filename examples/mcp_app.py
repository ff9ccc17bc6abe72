"""What an MCP-capable app does with ``mcp_config.json``: start graphmem, let a model use it.

The app reads the configuration block (the same one you paste into your assistant's MCP
settings), starts ``graphmem mcp`` over stdio with the official SDK's client, offers the
tools to a chat model and runs the tool calls it makes. The model here is scripted
(langchain-core's FakeMessagesListChatModel): first it remembers, then it recalls.

    python examples/mcp_app.py [--config examples/mcp_config.json] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from mcp import Client, StdioServerParameters

HERE = Path(__file__).resolve().parent


def scripted_model() -> FakeMessagesListChatModel:
    """A model that first remembers what the user said, then recalls it."""
    def call(name: str, args: dict, n: int) -> AIMessage:
        return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call-{n}"}])

    return FakeMessagesListChatModel(responses=[
        call("remember", {"text": "The user's cat is called Miso."}, 1),
        call("recall", {"query": "What is the user's cat called?"}, 2),
    ])


def server_parameters(config: dict, data_dir: str | None) -> StdioServerParameters:
    """The stdio server the configuration names (``~`` and the data directory resolved)."""
    entry = config["mcpServers"]["graphmem"]
    command = shutil.which(entry["command"]) or str(Path(sys.executable).with_name(entry["command"]))
    args = [os.path.expanduser(a) for a in entry["args"]]
    if data_dir:
        args[args.index("--data-dir") + 1] = data_dir
    return StdioServerParameters(command=command, args=args, env=entry.get("env"))


async def run(params: StdioServerParameters) -> list[dict]:
    model, results = scripted_model(), []
    async with Client(params, read_timeout_seconds=180) as client:
        tools = [t.name for t in (await client.list_tools()).tools]
        print("tools offered to the model:", ", ".join(tools))
        for user_turn in ("My cat is called Miso.", "What is my cat called?"):
            reply = model.invoke(user_turn)
            for call in reply.tool_calls:
                result = await client.call_tool(call["name"], call["args"])
                data = result.structured_content
                results.append({"tool": call["name"], "error": result.is_error, "result": data})
                print(f"{call['name']}({json.dumps(call['args'])}) -> "
                      f"{json.dumps(data)[:200]}")
    return results


def main(config_path: str | Path = HERE / "mcp_config.json", data_dir: str | None = None) -> list[dict]:
    config = json.loads(Path(config_path).read_text())
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(run(server_parameters(config, data_dir or f"{tmp}/data")))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=HERE / "mcp_config.json")
    parser.add_argument("--data-dir", default=None, help="Default: a temporary directory.")
    args = parser.parse_args()
    main(args.config, args.data_dir)

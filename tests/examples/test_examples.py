"""Every example in examples/ runs, offline, with scripted models; its outcome is checked."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_two_langgraph_agents_share_what_they_said(tmp_path):
    pytest.importorskip("langgraph", reason='pip install "graphmem[langgraph]"')
    outcome = load("langgraph_two_agents").main(str(tmp_path / "data"))
    assert [who for who, _ in outcome["turns"]] == ["alice", "bob", "alice", "bob"]
    hit = outcome["bob_recalls"]
    assert "blue flowerpot" in hit.text and set(hit.owners) == {"alice", "bob"}


def test_three_processes_share_one_service(tmp_path):
    pytest.importorskip("fastapi", reason='pip install "graphmem[service]"')
    example = load("service_three_processes")
    recalled = {r["agent"]: r for r in example.main(str(tmp_path))}
    for agent, (text, companion) in example.SEEN.items():
        asker = recalled[companion]  # the companion witnessed it, so recalls it
        assert asker["recalled"] == text and set(asker["owners"]) == {agent, companion}
        assert asker["torch_loaded"] is False


def test_the_mcp_configuration_starts_a_server_an_app_can_use(tmp_path):
    pytest.importorskip("mcp", reason='pip install "graphmem[mcp]"')
    results = load("mcp_app").main(data_dir=str(tmp_path / "data"))
    assert [r["tool"] for r in results] == ["remember", "recall"]
    assert not any(r["error"] for r in results)
    assert results[1]["result"]["result"][0]["text"] == "The user's cat is called Miso."

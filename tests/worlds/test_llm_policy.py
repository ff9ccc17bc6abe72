"""The chat-model policy with a scripted fake chat model from langchain-core."""

from __future__ import annotations

import json

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from graphmem.worlds.kernel import Kernel
from graphmem.worlds.llm_policy import LLMPolicy
from tests.worlds.test_kernel import small_world


def test_the_model_decides_and_every_call_is_logged():
    replies = [
        json.dumps([{"kind": "say", "args": {"to": ["c1"], "text": "the ship is late"}},
                    {"kind": "move", "args": {"place": "garden"}}]),
        "Sure! ```json\n[{\"kind\": \"push_goal\", \"args\": {\"goal\": \"meet c0\"}}]\n```",
        '[{"kind": "fly", "args": {}}]', '[{"kind": "fly"}]', '[{"kind": "fly"}]',
    ]
    calls = []
    kernel = Kernel(small_world(2), LLMPolicy(FakeListChatModel(responses=replies),
                                              log=calls.append))
    kernel.step()  # c0 then c1 decide
    kernel.step()  # c0's answers name no real action, three times: it waits
    world = kernel.world
    assert world.entities["c0"].place == "garden"
    assert world.minds["c1"].goals == ["meet c0"]
    assert [m.text for m in world.thread("c0", "c1")] == ["the ship is late"]
    assert [c["actor"] for c in calls] == ["c0", "c1", "c0", "c1"]
    assert "You are Char 0" in calls[0]["prompt"] and "remember" in calls[0]["prompt"]
    assert str(calls[2]["actions"]).startswith("failed")
    assert [e["kind"] for e in kernel.events if e["round"] == 1 and e["actor"] == "c0"] == ["wait"]

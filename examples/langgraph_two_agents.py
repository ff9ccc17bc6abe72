"""Two LangGraph agents in one conversation, sharing memory through graphmem.

Alice and Bob take turns. Before speaking, each recalls from graphmem what *it* knows
(a GraphmemRetriever bound to that agent); after speaking, the speaker remembers what it
said, with the listener as witness, so both come to own the memory. Afterwards Bob is
asked something only Alice said: he finds it in his own memory.

The chat models are scripted (langchain-core's FakeListChatModel), so this runs offline;
swap in any chat model (e.g. ChatOpenAI) to have them really talk.

    python examples/langgraph_two_agents.py [--data-dir ./example-data]
"""

from __future__ import annotations

import argparse
import tempfile
from typing import TypedDict

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph

from graphmem import MemoryGraph
from graphmem.integrations.langchain import GraphmemRetriever

SCRIPT = {
    "alice": ["Before I leave: the spare key is under the blue flowerpot.",
              "The plumber comes on Thursday at nine to fix the boiler."],
    "bob": ["Thanks. I will water the tomatoes every morning.",
            "Got it, I will be home on Thursday morning."],
}


class Conversation(TypedDict):
    turns: list[tuple[str, str]]  # (speaker, what they said)


def speaker(name: str, listener: str, model, memory: MemoryGraph):
    """A graph node: recall what ``name`` knows, reply, remember the reply."""
    retriever = GraphmemRetriever(memory=memory, agent=name, k=3)

    def speak(state: Conversation) -> Conversation:
        heard = state["turns"][-1][1] if state["turns"] else "Hello!"
        known = retriever.invoke(heard)
        reply = model.invoke([
            SystemMessage(f"You are {name}. You remember:\n"
                          + "\n".join(f"- {d.page_content}" for d in known)),
            HumanMessage(heard)]).content
        memory.remember(name, reply, witnesses=[listener])
        return {"turns": [*state["turns"], (name, reply)]}

    return speak


def build_conversation(memory: MemoryGraph, rounds: int = 2):
    graph = StateGraph(Conversation)
    graph.add_node("alice", speaker("alice", "bob", FakeListChatModel(responses=SCRIPT["alice"]),
                                    memory))
    graph.add_node("bob", speaker("bob", "alice", FakeListChatModel(responses=SCRIPT["bob"]),
                                  memory))
    graph.add_edge(START, "alice")
    graph.add_edge("alice", "bob")
    graph.add_conditional_edges(
        "bob", lambda s: END if len(s["turns"]) >= 2 * rounds else "alice")
    return graph.compile()


def main(data_dir: str | None = None) -> dict:
    with tempfile.TemporaryDirectory() as tmp, \
            MemoryGraph.open(data_dir=data_dir or f"{tmp}/data") as memory:
        final = build_conversation(memory).invoke({"turns": []})
        for who, said in final["turns"]:
            print(f"{who:>5}: {said}")
        hits = memory.recall("bob", "Where is the spare key?", k=1)
        print(f"\nbob recalls: {hits[0].text} (owners: {', '.join(hits[0].owners)})")
        return {"turns": final["turns"], "bob_recalls": hits[0]}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="Keep the memory here (default: a temp dir).")
    main(parser.parse_args().data_dir)

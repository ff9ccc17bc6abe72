"""One MemoryGraph shared by threads: every call's result is what it would be alone."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from graphmem import MemoryGraph

SHARED = ["The night ferry to Hvar was cancelled because of the storm.",
          "The lighthouse keeper found a crate of oranges on the rocks."]


def test_threads_sharing_a_handle_lose_nothing_and_duplicate_nothing(tmp_path, embedder):
    agents = ["ana", "ben", "cy", "dee"]
    with MemoryGraph.open(data_dir=tmp_path / "data", embedder=embedder) as g:
        def work(agent: str) -> list[str]:
            own = f"{agent.title()} repaired the {agent} net on the pier."
            for text in [own, *SHARED]:
                g.remember(agent, text, ns="t")
            return [h.text for h in g.recall(agent, "What happened to the ferry?", ns="t")]

        with ThreadPoolExecutor(len(agents)) as pool:
            answers = dict(zip(agents, pool.map(work, agents)))
        rows = g.cypher("MATCH (m:Memory {ns: 't'}) OPTIONAL MATCH (a:Agent)-[:OWNS]->(m) "
                        "RETURN m.text AS text, collect(a.id) AS owners")
    owners = {r["text"]: sorted(r["owners"]) for r in rows}
    assert len(rows) == len(agents) + len(SHARED)
    for text in SHARED:
        assert owners[text] == agents
    for agent in agents:
        assert answers[agent][0] == SHARED[0]
        others = [t for t in answers[agent] if t not in SHARED]
        assert all(agent in t.lower() for t in others)  # only what the agent owns

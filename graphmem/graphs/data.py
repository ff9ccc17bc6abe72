"""The three case-study views of a namespace, as plain nodes and edges.

- **conversation**: characters and who messaged whom (``MESSAGED``, written by world
  runs), edge weight the number of messages;
- **ownership**: agents linked by the memories they both own, weight the count; and
  the agent × agent overlap (Jaccard of owned sets) with its communities ordered, so
  that the heat map's blocks show;
- **combined**: agents, the most widely owned memories (capped), ``OWNS`` and
  ``AFFILIATED`` between them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphmem.errors import InvalidInput, missing

VIEWS = ("conversation", "ownership", "combined")
COMBINED_LIMIT = 300


@dataclass
class CaseGraph:
    """Nodes ``{id, caption, kind, size}`` and edges ``{source, target, type, weight}``."""

    view: str
    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)


def agents(graph, ns: str) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in graph.query("graphs/agents", {"ns": ns})}


def agent_node(row: dict[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "caption": row["name"] or row["id"], "kind": row["kind"] or "agent",
            "size": row["owned"]}


def conversation_graph(graph, ns: str) -> CaseGraph:
    """Who messaged whom."""
    edges = [{"source": r["source"], "target": r["target"], "type": "MESSAGED",
              "weight": r["count"]} for r in graph.query("graphs/conversation", {"ns": ns})]
    people = agents(graph, ns)
    used = sorted({e["source"] for e in edges} | {e["target"] for e in edges})
    return CaseGraph("conversation", [agent_node(people[a]) for a in used], edges)


def ownership_graph(graph, ns: str) -> CaseGraph:
    """Agents linked by the memories they share."""
    edges = [{"source": r["source"], "target": r["target"], "type": "SHARES",
              "weight": r["shared"]} for r in graph.query("graphs/ownership_pairs", {"ns": ns})]
    people = agents(graph, ns)
    used = sorted({e["source"] for e in edges} | {e["target"] for e in edges})
    return CaseGraph("ownership", [agent_node(people[a]) for a in used], edges)


def combined_graph(graph, ns: str, limit: int = COMBINED_LIMIT) -> CaseGraph:
    """Agents, the most widely owned memories, ownership and links among them."""
    rows = graph.query("graphs/memories", {"ns": ns, "limit": limit})
    kept = {r["id"] for r in rows}
    people = agents(graph, ns)
    owners = sorted({o for r in rows for o in r["owners"]})
    nodes = [agent_node(people[a]) for a in owners]
    nodes += [{"id": r["id"], "caption": short(r["text"]), "kind": "memory",
               "size": len(r["owners"]), "text": r["text"]} for r in rows]
    edges = [{"source": o, "target": r["id"], "type": "OWNS", "weight": 1}
             for r in rows for o in r["owners"]]
    edges += [{"source": r["id"], "target": x, "type": "AFFILIATED", "weight": 1}
              for r in rows for x in r["linked"] if x in kept]
    return CaseGraph("combined", nodes, edges)


def view_graph(graph, ns: str, view: str) -> CaseGraph:
    """One of ``VIEWS``."""
    if view not in VIEWS:
        raise InvalidInput(f"unknown view {view!r}; choose one of {', '.join(VIEWS)}")
    return {"conversation": conversation_graph, "ownership": ownership_graph,
            "combined": combined_graph}[view](graph, ns)


def short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def communities(names: list[str], weights: dict[tuple[str, str], float]) -> list[list[str]]:
    """Communities of a weighted graph (greedy modularity), largest first, each sorted."""
    try:
        import networkx as nx
    except ImportError:
        raise missing("networkx", "graphs") from None
    g = nx.Graph()
    g.add_nodes_from(names)
    g.add_weighted_edges_from((a, b, w) for (a, b), w in weights.items() if w > 0)
    if g.number_of_edges() == 0:
        return [[n] for n in sorted(names)]
    found = nx.community.greedy_modularity_communities(g, weight="weight")
    return sorted((sorted(c) for c in found), key=lambda c: (-len(c), c))


def overlap_matrix(graph, ns: str, kinds: tuple[str, ...] = ("character",)):
    """Agents ordered by community and the Jaccard overlap of their owned memories."""
    people = [a for a, row in agents(graph, ns).items() if (row["kind"] in kinds) and row["owned"]]
    owned = {a: row["owned"] for a, row in agents(graph, ns).items()}
    shared = {(r["source"], r["target"]): r["shared"]
              for r in graph.query("graphs/ownership_pairs", {"ns": ns})}
    jac = {}
    for (a, b), n in shared.items():
        if a in people and b in people:
            jac[(a, b)] = n / (owned[a] + owned[b] - n)
    order = [a for c in communities(people, jac) for a in c]
    matrix = [[1.0 if a == b else jac.get((a, b), jac.get((b, a), 0.0)) for b in order]
              for a in order]
    return order, matrix

"""Drawing the case-study graphs: standalone HTML (``neo4j-viz``) and PNG (matplotlib).

Colours follow the Neo4j Browser style shipped in ``cypher/browser/graphmem.grass`` so a
view looks the same in a file and in Browser. Node size grows with what a node owns (an
agent) or how many own it (a memory); edge width with the edge's weight.
"""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

from graphmem.errors import missing
from graphmem.graphs.data import VIEWS, CaseGraph, agents, overlap_matrix, view_graph
from graphmem.graphs.fonts import font_families

COLOURS = {"character": "#C990C0", "environment": "#8DCC93", "carrier": "#D9C8AE",
           "memory": "#57C7E3", "agent": "#C990C0"}
EDGE_COLOURS = {"OWNS": "#b261a5", "AFFILIATED": "#23b3d7", "MESSAGED": "#4C8EDA",
                "SHARES": "#b261a5"}


def node_size(graph: CaseGraph, node: dict) -> float:
    return 12 + 6 * math.log1p(node.get("size") or 0)


def to_html(graph: CaseGraph, path: Path, *, title: str = "") -> Path:
    """A standalone interactive HTML page of ``graph``."""
    try:
        from neo4j_viz import Node, Relationship, VisualizationGraph
    except ImportError:
        raise missing("neo4j-viz", "graphs") from None
    # model_validate: the renderer's models are pydantic; unset fields keep its defaults
    nodes = [Node.model_validate({
        "id": n["id"], "caption": n["caption"], "size": node_size(graph, n),
        "color": COLOURS.get(n["kind"], "#A5ABB6"),
        "properties": {k: v for k, v in n.items() if k in ("kind", "size", "text")}})
        for n in graph.nodes]
    rels = [Relationship.model_validate({
        "source": e["source"], "target": e["target"], "caption": e["type"],
        "width": 1 + math.log1p(e["weight"]), "color": EDGE_COLOURS.get(e["type"], "#A5ABB6"),
        "properties": {"weight": e["weight"]}})
        for e in graph.edges]
    html = VisualizationGraph(nodes=nodes, relationships=rels).render(height="800px")
    page = html.data if hasattr(html, "data") else str(html)
    if title:  # the page's own <title>, so a browser tab says which run it is
        page = page.replace("<title>neo4j-viz</title>", f"<title>{escape(title)}</title>", 1)
    path.write_text(page, encoding="utf-8")
    return path


def to_png(graph: CaseGraph, path: Path, *, title: str = "") -> Path:
    """A static drawing of ``graph`` (spring layout, fixed seed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        import networkx as nx
    except ImportError:
        raise missing("networkx", "graphs") from None
    g = nx.Graph()
    for n in graph.nodes:
        g.add_node(n["id"])
    for e in graph.edges:
        g.add_edge(e["source"], e["target"], weight=e["weight"])
    pos = nx.spring_layout(g, seed=0, weight="weight") if len(g) else {}
    fig, ax = plt.subplots(figsize=(10, 8))
    widths = [0.5 + math.log1p(g[a][b]["weight"]) for a, b in g.edges]
    nx.draw_networkx_edges(g, pos, ax=ax, width=widths, alpha=0.4)
    nx.draw_networkx_nodes(g, pos, ax=ax, node_size=[node_size(graph, n) * 12 for n in graph.nodes],
                           node_color=[COLOURS.get(n["kind"], "#A5ABB6") for n in graph.nodes])
    labels = {n["id"]: n["caption"] for n in graph.nodes if n["kind"] != "memory"}
    families = font_families([*labels.values(), title])
    nx.draw_networkx_labels(g, pos, labels=labels, ax=ax, font_size=7,
                            font_family=families or "sans-serif")
    ax.set_title(title or graph.view, fontfamily=families or "sans-serif")
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def heatmap_png(graph_db, ns: str, path: Path) -> Path:
    """The agent × agent memory overlap, agents ordered by community."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order, matrix = overlap_matrix(graph_db, ns)
    names = {a: row["name"] or a for a, row in agents(graph_db, ns).items()}
    labels = [names.get(a, a) for a in order]
    families = font_families([*labels, ns])
    with plt.rc_context({"font.family": families} if families else {}):
        return draw_heatmap(plt, ns, labels, matrix, path)


def draw_heatmap(plt, ns: str, labels: list[str], matrix, path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(8, 7))
    im = ax.imshow(matrix, cmap="viridis", vmin=0, vmax=max(
        [v for i, row in enumerate(matrix) for j, v in enumerate(row) if i != j], default=1) or 1)
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=8)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.set_title(f"{ns}: memory overlap (Jaccard), communities ordered")
    fig.colorbar(im, ax=ax, shrink=0.8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_views(graph_db, ns: str, out: Path) -> list[Path]:
    """Every view of ``ns`` as HTML and PNG, plus the overlap heat map, into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for view in VIEWS:
        g = view_graph(graph_db, ns, view)
        paths.append(to_html(g, out / f"{view}.html", title=f"{ns} {view}"))
        paths.append(to_png(g, out / f"{view}.png", title=f"{ns}: {view}"))
    paths.append(heatmap_png(graph_db, ns, out / "ownership_heatmap.png"))
    return paths

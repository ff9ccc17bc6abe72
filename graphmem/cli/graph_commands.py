"""``graphmem graph`` and ``graphmem export``: case-study graphs of a namespace."""

from __future__ import annotations

from pathlib import Path

import click

from graphmem.api import MemoryGraph
from graphmem.cli.app import cli, open_graph
from graphmem.graphs.data import view_graph
from graphmem.graphs.export import (export_rows, import_command, to_server, write_csv,
                                    write_cypher)
from graphmem.graphs.render import heatmap_png, to_html, to_png

VIEWS = ("conversation", "ownership", "combined")


@cli.group()
def graph() -> None:
    """Draw a namespace's case-study graphs (conversation, ownership, combined)."""


@graph.command("html")
@click.option("--ns", required=True, help="Namespace to draw.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="F.html")
@click.option("--view", type=click.Choice(VIEWS), default="combined", show_default=True)
@click.pass_context
def graph_html(ctx, ns, out, view) -> None:
    """A standalone interactive HTML page of one view (made with neo4j-viz)."""

    with open_graph(ctx) as g:
        drawn = view_graph(g, ns, view)
        to_html(drawn, out, title=f"{ns} {view}")
    click.echo(f"{out}: {len(drawn.nodes)} nodes, {len(drawn.edges)} edges")


@graph.command("png")
@click.option("--ns", required=True)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="F.png")
@click.option("--view", type=click.Choice((*VIEWS, "heatmap")), default="combined",
              show_default=True)
@click.pass_context
def graph_png(ctx, ns, out, view) -> None:
    """A static PNG of one view, or the agent x agent overlap heat map."""

    with open_graph(ctx) as g:
        if view == "heatmap":
            heatmap_png(g, ns, out)
        else:
            to_png(view_graph(g, ns, view), out, title=f"{ns}: {view}")
    click.echo(str(out))


@cli.group()
def export() -> None:
    """Copy a namespace out: into a Neo4j server, or files Neo4j's tools load."""


@export.command("neo4j")
@click.option("--ns", required=True)
@click.option("--uri", "target_uri", required=True, help="neo4j://host:7687 or bolt://...")
@click.option("--user", default="neo4j", show_default=True)
@click.option("--password", envvar="NEO4J_PASSWORD", default=None,
              help="Env: NEO4J_PASSWORD.")
@click.option("--with-embeddings", is_flag=True,
              help="Keep the embeddings (needed to recall from the copy).")
@click.pass_context
def export_neo4j(ctx, ns, target_uri, user, password, with_embeddings) -> None:
    """Copy NS into a Neo4j server, in graphmem's schema, embeddings left out."""

    with open_graph(ctx) as g, MemoryGraph.open(uri=target_uri, user=user,
                                                password=password) as target:
        n = to_server(g, ns, target, with_embeddings=with_embeddings)
    click.echo(f"{n} nodes and relationships of {ns} copied to {target_uri}")


@export.command("file")
@click.option("--ns", required=True)
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="F.cypher (statements for cypher-shell -f) or a directory (CSV).")
@click.option("--format", "fmt", type=click.Choice(["cypher", "csv"]), default="cypher",
              show_default=True)
@click.pass_context
def export_file(ctx, ns, out, fmt) -> None:
    """Write NS as Cypher statements or as CSV for neo4j-admin import (no embeddings)."""

    with open_graph(ctx) as g:
        rows = export_rows(g, ns)
    if fmt == "cypher":
        write_cypher(rows, out)
        click.echo(f"{out}: {len(rows)} nodes and relationships; load with cypher-shell -f {out}")
        return
    paths = write_csv(rows, out)
    click.echo(f"{len(paths)} files in {out}; load with (from that directory):")
    click.echo(import_command(paths))

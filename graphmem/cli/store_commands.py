"""Commands about the store itself: init, status, cypher, repair, check, reclaim,
relink, reembed."""

from __future__ import annotations

import sys

import json
from pathlib import Path

import click

from graphmem.api import MemoryGraph
from graphmem.cli.app import cli, open_graph
from graphmem.configured import embedder_from_env
from graphmem.embed import Embedder
from graphmem.errors import InvalidInput
from graphmem.settings import StoreSettings
from graphmem.store.repair import repair_append_only
from graphmem.cli.render import print_table


@cli.command()
@click.pass_context
def init(ctx: click.Context) -> None:
    """Create the store (starting the embedded server if needed) and its schema."""
    with open_graph(ctx) as g:
        status = g.status()
    click.echo(f"ready: {status['backend']} {status['version']} at {status['uri']}, "
               f"schema version {status['schema_version']}")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@click.pass_context
def status(ctx: click.Context, as_json: bool) -> None:
    """Show the backend, URI, node and edge counts by label/type and schema version."""
    with open_graph(ctx) as g:
        info = g.status()
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    click.echo(f"backend:        {info['backend']} {info['version']}")
    click.echo(f"uri:            {info['uri']}")
    click.echo(f"schema version: {info['schema_version']} (this release: "
               f"{info['schema_version_expected']})")
    for upgrade in info["upgrades_pending"]:
        click.echo(f"after the upgrade: {upgrade}")
    print_table([{"label": k, "nodes": v} for k, v in info["nodes"].items()] or
                [{"label": "(none)", "nodes": 0}])
    print_table([{"type": k, "edges": v} for k, v in info["edges"].items()] or
                [{"type": "(none)", "edges": 0}])


def _parse_param(text: str) -> tuple[str, object]:
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise click.BadParameter(f"{text!r} is not k=v", param_hint="--param")
    try:
        value = json.loads(raw)  # numbers, booleans, lists, quoted strings
    except json.JSONDecodeError:
        value = raw
    return key, value


@cli.command()
@click.argument("query")
@click.option("--param", "-p", "params", multiple=True, metavar="K=V",
              help="A query parameter; V is read as JSON when it parses, else as text.")
@click.option("--write", is_flag=True, help="Allow the query to write.")
@click.option("--json", "as_json", is_flag=True, help="Print rows as JSON.")
@click.pass_context
def cypher(ctx: click.Context, query: str, params: tuple[str, ...], write: bool,
           as_json: bool) -> None:
    """Run a Cypher QUERY (read-only unless --write) and print the rows.

    QUERY is Cypher text, or @name for a named query in cypher/ (e.g. @who_knew/owners_of).
    """
    values = dict(_parse_param(p) for p in params)
    with open_graph(ctx) as g:
        if query.startswith("@"):
            rows = g.query(query[1:], values, write=write)
        else:
            rows = g.cypher(query, values, write=write)
    if as_json:
        click.echo(json.dumps(rows, indent=2, default=str))
    else:
        print_table(rows)


@cli.command()
@click.option("--data-dir", "data_dir", type=click.Path(path_type=Path), default=None,
              help="Data directory to repair (default: the global --data-dir).")
@click.pass_context
def repair(ctx: click.Context, data_dir: Path | None) -> None:
    """Truncate a damaged append-only file at its last valid write, keeping a backup.

    Run it when opening the store fails with "the append-only file ... is damaged";
    every process using the store must be closed first.
    """
    settings = StoreSettings.from_env(data_dir=data_dir or ctx.obj["data_dir"])
    backup, report = repair_append_only(settings.data_dir, settings.redis_server)
    click.echo(report.strip())
    # a damaged record that still parses replays wrongly: the journal tells what was lost
    with MemoryGraph.open(data_dir=settings.data_dir, check=False) as g:
        lines = g.settle()
    for line in lines:
        click.echo(line)
    click.echo(f"repaired {Path(settings.data_dir).resolve()}; the damaged files are kept "
               f"in {backup}")


@cli.command()
@click.pass_context
def check(ctx: click.Context) -> None:
    """Check that the store is whole: every namespace's version agrees with its memories,
    its log and the version journal (what opening a store checks). Exit 1 if not. Also
    names the commands still due after an upgrade (they do not make it fail)."""
    obj = ctx.find_root().obj
    with MemoryGraph.open(uri=obj["uri"], data_dir=obj["data_dir"], check=False) as g:
        problems = g.check()
        upgrades = g.upgrades_pending()
    for problem in problems:
        click.echo(problem)
    for upgrade in upgrades:
        click.echo(f"after the upgrade: {upgrade}")
    if problems:
        click.echo("the store is damaged: run `graphmem repair` (embedded store) with every "
                   "process using it closed", err=True)
        sys.exit(1)
    click.echo("the store is whole")


@cli.command()
@click.option("--batch", type=int, default=256, show_default=True,
              help="Memories parsed and written per statement.")
@click.pass_context
def reclaim(ctx: click.Context, batch: int) -> None:
    """Keep with every memory the claims this release reads in it, where none are kept
    or an older release read them (after an import or an upgrade: a new statement
    otherwise parses the older memories it may replace, in every process)."""
    if batch <= 0:
        raise InvalidInput(f"--batch must be positive, got {batch}")
    obj = ctx.find_root().obj

    def progress(ns: str, read: int) -> None:
        click.echo(f"{ns}: {read:,} memories read", err=True)

    with MemoryGraph.open(uri=obj["uri"], data_dir=obj["data_dir"]) as g:
        done = g.reclaim(batch=batch, progress=progress)
    for ns, count in done.items():
        click.echo(f"{ns}: {count:,} memories given claims")


@cli.command()
@click.option("--check", is_flag=True,
              help="Only count the NEXT edges a relink would remove or add; change "
                   "nothing, and exit with status 1 if there are any.")
@click.pass_context
def relink(ctx: click.Context, check: bool) -> None:
    """Set every StoryArc timeline's NEXT edges to its memories' time order, memories of
    one time in the order they were recorded (after an upgrade: earlier releases left a
    stale edge where one deposit put several memories on one timeline, or linked the
    memories of one time by id). Each timeline is read whole: at a million memories this
    is a scan of every timeline, not a check to run at every open."""
    obj = ctx.find_root().obj

    def progress(ns: str, read: int) -> None:
        if read % 500 == 0:
            click.echo(f"{ns}: {read:,} timelines read", err=True)

    with MemoryGraph.open(uri=obj["uri"], data_dir=obj["data_dir"]) as g:
        done = g.relink_timelines(check=check, progress=progress)
    for ns, count in done.items():
        click.echo(f"{ns}: {count:,} NEXT edges " +
                   ("to remove or add (nothing changed; run `graphmem relink`)" if check
                    else "removed or added"))
    if check and any(done.values()):
        ctx.exit(1)


@cli.command()
@click.option("--embedder", default=None,
              help="The sentence-transformers model to rebuild with (a directory or a "
                   "name in the local cache). Default: GRAPHMEM_EMBEDDER, else the packaged "
                   "all-MiniLM-L6-v2.")
@click.option("--batch", type=int, default=256, show_default=True,
              help="Memories embedded and written per statement.")
@click.pass_context
def reembed(ctx: click.Context, embedder: str | None, batch: int) -> None:
    """Rebuild every memory's vector with another embedding model and record it in the
    store (close every other process using the store first)."""
    if batch <= 0:
        raise InvalidInput(f"--batch must be positive, got {batch}")
    model = Embedder(embedder) if embedder else embedder_from_env()
    obj = ctx.find_root().obj
    with MemoryGraph.open(uri=obj["uri"], data_dir=obj["data_dir"], embedder=model,
                          adopt_embedder=True) as g:
        done = g.reembed(batch=batch)
    for ns, count in done.items():
        click.echo(f"{ns}: {count} memories re-embedded")
    click.echo(f"the store's vectors now come from {model.name} ({model.dimension} dimensions)")

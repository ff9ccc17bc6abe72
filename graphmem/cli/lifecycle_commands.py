"""Curation from the command line: the twins of MemoryGraph.pin, forget, correct, delete
and consolidate. Every act is logged with the person or agent named by --by."""

from __future__ import annotations

import json
from collections.abc import Callable

import click

from graphmem.api import MemoryGraph
from graphmem.cli.app import cli, open_graph
from graphmem.cli.memory_commands import ns_option

by_option = click.option("--by", required=True,
                         help="Who does it (an agent id, usually the human curator); logged.")


def _flag_command(name: str, act: Callable[[MemoryGraph, str, str, str], None],
                  summary: str) -> None:
    @cli.command(name=name, help=summary)
    @click.argument("memory_id")
    @by_option
    @ns_option
    @click.pass_context
    def command(ctx: click.Context, memory_id: str, by: str, ns: str) -> None:
        with open_graph(ctx) as g:
            act(g, memory_id, by, ns)
        click.echo(f"{name}: {memory_id} (by {by})")


_flag_command("pin", lambda g, m, by, ns: g.pin(m, by=by, ns=ns),
              "Keep MEMORY_ID whatever its utility.")
_flag_command("unpin", lambda g, m, by, ns: g.unpin(m, by=by, ns=ns), "Undo pin.")
_flag_command("forget", lambda g, m, by, ns: g.forget(m, by=by, ns=ns),
              "Take MEMORY_ID out of recall (undo with unforget; kept for audit).")
_flag_command("unforget", lambda g, m, by, ns: g.unforget(m, by=by, ns=ns),
              "Bring a forgotten memory back into recall.")
_flag_command("delete", lambda g, m, by, ns: g.delete(m, by=by, ns=ns),
              "Erase MEMORY_ID's text, wordings, context and vector (a privacy request); "
              "a tombstone and the logged act remain.")


@cli.command()
@click.argument("memory_id")
@click.argument("text")
@by_option
@ns_option
@click.pass_context
def correct(ctx: click.Context, memory_id: str, text: str, by: str, ns: str) -> None:
    """A new wording TEXT that supersedes MEMORY_ID from now on (prints its id)."""
    with open_graph(ctx) as g:
        click.echo(g.correct(memory_id, text, by=by, ns=ns))


@cli.command()
@click.argument("memory_ids", nargs=-1, required=True)
@by_option
@ns_option
@click.pass_context
def consolidate(ctx: click.Context, memory_ids: tuple[str, ...], by: str, ns: str) -> None:
    """MEMORY_IDS become one semantic fact owned by all their owners (prints its id)."""
    with open_graph(ctx) as g:
        click.echo(g.consolidate(list(memory_ids), by=by, ns=ns))


@cli.command()
@ns_option
@click.option("--now", default=None, help="Score as of this time (ISO, date or epoch ms).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole report as JSON.")
@click.pass_context
def maintain(ctx: click.Context, ns: str, now: str | None, as_json: bool) -> None:
    """Intelligent Decay: score every memory (S = αR + βE + γU, recorded on each for
    Cypher), consolidate related ones under the threshold, prune the rest under it;
    pinned memories are never touched."""
    with open_graph(ctx) as g:
        report = g.maintain(ns=ns, now=now)
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    click.echo(f"{report['scored']} memories scored, {report['below_threshold']} under the "
               f"threshold, {report['pinned_kept']} pinned kept; "
               f"{len(report['consolidated'])} facts consolidated, "
               f"{len(report['pruned'])} pruned")


@cli.command()
@click.argument("agent")
@click.argument("task")
@ns_option
@click.pass_context
def task(ctx: click.Context, agent: str, task: str, ns: str) -> None:
    """Set what AGENT works on now (memories relevant to TASK decay slower)."""
    with open_graph(ctx) as g:
        g.set_task(agent, task, ns=ns)
    click.echo(f"{agent} now works on: {task}")

"""``graphmem ui``: the timeline in a browser (graphmem.ui), served on 127.0.0.1 with a
token in the printed URL, until Ctrl-C."""

from __future__ import annotations

import getpass
import os
import signal
import threading

import click

from graphmem.cli.app import cli, open_graph
from graphmem.cli.memory_commands import ns_option
from graphmem.configured import llm_roles
from graphmem.errors import GraphmemError
from graphmem.ui import Timeline, serve
from graphmem.ui.timeline import MAX_PAGE_SIZE, PAGE_SIZE


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # a polite kill closes the store like Ctrl-C does


def _prepare(timeline: Timeline) -> None:
    """Load the namespace view and the embedding model now, not at the first act or page
    (about 10 s each at 10,000 memories on a loaded 2-core machine: benchmarks/ui_bench.py)."""
    try:
        timeline.prepare()
    except GraphmemError as exc:  # the first act will say it again, to the person
        click.echo(f"could not prepare {timeline.ns!r} ahead of the first act: {exc}",
                   err=True)


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container, say)
        return "curator"


@cli.command()
@ns_option
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0: any free port).")
@click.option("--agent", default=None, help="Show this agent's memories first (the page "
              "can switch to another agent or to all).")
@click.option("--by", default=None, help="Who acts (logged with each pin, forget and "
              "consolidate); the page can change it. Default: the OS user.")
@click.option("--page-size", type=click.IntRange(1, MAX_PAGE_SIZE), default=PAGE_SIZE,
              show_default=True, help="Memories per page.")
@click.pass_context
def ui(ctx: click.Context, ns: str, port: int, agent: str | None, by: str | None,
       page_size: int) -> None:
    """Serve the timeline of a namespace's memories in a browser: each memory's utility
    (S = αR + βE + γU), owners, conflicts and supersession, with Retain, Forget and
    Consolidate. Only this machine can reach it, with the token in the printed URL."""
    with open_graph(ctx) as g:
        model_summary = bool(os.environ.get("GRAPHMEM_LLM", "").strip()) and \
            "consolidate" in llm_roles()
        timeline = Timeline(g, ns=ns, model_summary=model_summary)
        server = serve(timeline, port=port, by=by or _os_user(), agent=agent,
                       page_size=page_size)
        threading.Thread(target=_prepare, args=(timeline,), daemon=True,
                         name="graphmem-ui-prepare").start()
        click.echo(f"graphmem timeline of {ns!r}: open {server.url}")
        click.echo("(the token in the URL is the key; Ctrl-C stops the server)")
        signal.signal(signal.SIGTERM, _stop)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.httpd.server_close()

"""The ``graphmem`` command group and what every command shares."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, cast

import click

from graphmem.api import MemoryGraph
from graphmem.errors import GraphmemError
from graphmem.security import operation, sign
from graphmem.service.client import Client


class _Group(click.Group):
    """A click group that prints graphmem errors as one clear line, exit code 1."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except GraphmemError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)


@click.group(cls=_Group)
@click.option("--uri", envvar="GRAPHMEM_URI", default=None,
              help="Store URI: none for the embedded store, falkordb://host:port, "
                   "neo4j://host:7687 or bolt://host:7687. Env: GRAPHMEM_URI.")
@click.option("--data-dir", envvar="GRAPHMEM_DATA", default=None,
              help="Data directory of the embedded store (default ./graphmem-data). "
                   "Env: GRAPHMEM_DATA.")
@click.version_option(package_name="graphmem")
@click.pass_context
def cli(ctx: click.Context, uri: str | None, data_dir: str | None) -> None:
    """Shared long-term memory for many agents, kept in a graph database."""
    ctx.obj = {"uri": uri, "data_dir": data_dir}


def signature_from(key_file: str | None, name: str, **arguments: Any) -> str | None:
    """The signature of operation ``name`` with ``arguments`` by the private key in
    ``key_file`` (base64 text, from ``graphmem agent keygen``); None without a file."""
    if key_file is None:
        return None
    private = Path(key_file).read_text("utf-8").strip()
    return sign(private, operation(name, **arguments))


key_file_option = click.option(
    "--key-file", type=click.Path(exists=True, dir_okay=False), default=None,
    help="The acting agent's base64 private key, to sign the operation where the "
         "namespace requires signed writes.")


def open_graph(ctx: click.Context, **options: Any) -> MemoryGraph:
    """Open the MemoryGraph the global options name; with GRAPHMEM_SERVER set (and no
    options), a client of that service instead: the same methods, no model loaded here."""
    if os.environ.get("GRAPHMEM_SERVER") and not options:
        # typed as a MemoryGraph for the commands: the client has every method they call
        return cast(MemoryGraph, Client.from_env())
    obj = ctx.find_root().obj
    return MemoryGraph.open(uri=obj["uri"], data_dir=obj["data_dir"], **options)

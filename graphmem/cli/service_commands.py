"""``graphmem serve``: the shared service, one process holding the model and the views."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

import click

from graphmem.api import MemoryGraph
from graphmem.cli.app import cli
from graphmem.service.server import (DEFAULT_HOST, DEFAULT_PORT, choose_token,
                                     default_token_file)
from graphmem.service.server import openapi_spec
from graphmem.service.server import serve as run
from graphmem.untraced import freeze_survivors


@cli.command()
@click.option("--host", default=DEFAULT_HOST, show_default=True,
              help="Address to listen on. Anything but loopback exposes your memory to the "
                   "network: put it behind TLS.")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=int,
              help="Port to listen on (0: any free port, printed on start).")
@click.option("--token", envvar="GRAPHMEM_TOKEN", default=None,
              help="Bearer token clients must send. Env: GRAPHMEM_TOKEN. Default: a new "
                   "random token written to the token file.")
@click.option("--token-file", type=click.Path(path_type=Path), default=None,
              help="Where a generated token is written (mode 0600). Default: "
                   "$GRAPHMEM_TOKEN_FILE or service.token in the data directory.")
@click.option("--warm", "warm_ns", multiple=True,
              help="Read this namespace into memory before serving (repeat).")
@click.option("--print-openapi", is_flag=True,
              help="Print the API's OpenAPI document (JSON) and exit, without serving.")
@click.pass_context
def serve(ctx, host, port, token, token_file, warm_ns, print_openapi) -> None:
    """Serve the memory over a JSON HTTP API (OpenAPI at /openapi.json) to agents on this
    machine: one model and one set of views for every client. Clients: graphmem.Client,
    or any CLI command with GRAPHMEM_SERVER=http://HOST:PORT set. The models come from
    GRAPHMEM_EMBEDDER and GRAPHMEM_LLM, as for every MemoryGraph."""
    if print_openapi:
        click.echo(json.dumps(openapi_spec(), indent=2))
        return
    root = ctx.find_root().obj
    token_path = token_file or default_token_file(root["data_dir"])
    token, generated = choose_token(token, token_path)
    with MemoryGraph.open(uri=root["uri"], data_dir=root["data_dir"]) as graph:
        graph.embedder.embed(["warm up"])  # load the model now, not on the first call
        for ns in warm_ns:
            graph.warm(ns)
        # what the process holds from here on (the interpreter's modules, the models and
        # their runtimes, the warmed views) lives as long as it does: the collector need
        # not walk it at every full collection (at a million memories that walk was a
        # pause of 0.2-0.3 s every 25-100 writes: docs/scaling-out.md); nor what the
        # views make later and keep (records), once it has survived a full collection
        gc.collect()
        gc.freeze()
        freeze_survivors()

        def announce(url: str) -> None:
            where = f"token written to {token_path}" if generated else "token as given"
            click.echo(f"graphmem serving on {url} ({where}); "
                       f"clients: export GRAPHMEM_SERVER={url}")
            sys.stdout.flush()  # whoever started us waits for this line

        run(graph, token=token, host=host, port=port, announce=announce)


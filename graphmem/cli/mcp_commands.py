"""``graphmem mcp``: serve memory to an MCP-capable assistant over stdio or HTTP."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import click

from graphmem.cli.app import cli, open_graph
from graphmem.mcp.server import build_server
from graphmem.mcp.tools import Identity
from graphmem.models import DEFAULT_NS
from graphmem.service.server import bind, choose_token, default_token_file, run_app


@cli.command("mcp")
@click.option("--agent", envvar="GRAPHMEM_AGENT", required=True,
              help="The agent this server acts as; every tool remembers and recalls as it. "
                   "Env: GRAPHMEM_AGENT.")
@click.option("--ns", envvar="GRAPHMEM_NS", default=DEFAULT_NS, show_default=True,
              help="Namespace of the memories. Env: GRAPHMEM_NS.")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio",
              show_default=True, help="stdio (the app starts this command) or streamable HTTP.")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: address to listen on.")
@click.option("--port", default=8766, show_default=True, type=int,
              help="HTTP: port (0: any free port, printed on start).")
@click.option("--token", envvar="GRAPHMEM_MCP_TOKEN", default=None,
              help="HTTP: bearer token clients must send. Env: GRAPHMEM_MCP_TOKEN. Default: "
                   "a new one written to --token-file.")
@click.option("--token-file", type=click.Path(path_type=Path), default=None,
              help="HTTP: where a generated token is written (0600). Default: mcp.token in "
                   "the data directory.")
@click.option("--audit/--no-audit", default=True, show_default=True,
              help="Offer the who-knew and Cypher tools, which read beyond the agent's own "
                   "memories.")
@click.pass_context
def mcp_command(ctx, agent, ns, transport, host, port, token, token_file, audit) -> None:
    """Serve memory over MCP as AGENT. With GRAPHMEM_SERVER set, the tools call the shared
    service (no model is loaded in this process); otherwise the store is opened here."""
    me = Identity(agent=agent, ns=ns, audit=audit)
    memory = open_graph(ctx)
    try:
        server = build_server(memory, me)
        if transport == "stdio":
            server.run("stdio")
        else:
            _serve_http(ctx, server, host, port, token, token_file)
    finally:
        memory.close()


def _serve_http(ctx, server, host: str, port: int, token: str | None,
                token_file: Path | None) -> None:

    path = token_file or default_token_file(ctx.find_root().obj["data_dir"]).with_name("mcp.token")
    token, generated = choose_token(token, path)
    app = BearerAuth(server.streamable_http_app(host=host), token)
    sock = bind(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    where = f"token written to {path}" if generated else "token as given"
    click.echo(f"graphmem mcp serving on http://{bound_host}:{bound_port}/mcp ({where})")
    sys.stdout.flush()  # whoever started us waits for this line
    run_app(app, sock)


class BearerAuth:
    """ASGI middleware: HTTP requests need ``Authorization: Bearer <token>``."""

    def __init__(self, app, token: str) -> None:
        self.app, self.expected = app, f"Bearer {token}".encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not secrets.compare_digest(given, self.expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body",
                            "body": b'{"error": "missing or wrong bearer token"}'})
                return
        await self.app(scope, receive, send)

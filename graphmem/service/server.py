"""Run the service: choose the token, open the graph once, serve until stopped.

The token comes from ``--token`` / ``GRAPHMEM_TOKEN``; otherwise one is generated and
written to the token file (mode 0600) for clients on this machine to read. The default
token file is ``service.token`` in the data directory, where :func:`default_token_file`
finds it from the client side too.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
from collections.abc import Callable
from typing import Any
from pathlib import Path

from graphmem.errors import ConfigError, missing
from graphmem.settings import DEFAULT_DATA_DIR

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
TOKEN_FILE_NAME = "service.token"


def default_token_file(data_dir: str | os.PathLike | None = None) -> Path:
    """``$GRAPHMEM_TOKEN_FILE``, else ``service.token`` in the data directory."""
    if os.environ.get("GRAPHMEM_TOKEN_FILE"):
        return Path(os.environ["GRAPHMEM_TOKEN_FILE"])
    return Path(data_dir or os.environ.get("GRAPHMEM_DATA") or DEFAULT_DATA_DIR) / TOKEN_FILE_NAME


def write_token(path: Path, token: str) -> None:
    """Write ``token`` to ``path`` readable by its owner only (0600), replacing it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # an existing file keeps its mode on open; make it private
        os.write(fd, token.encode())
    finally:
        os.close(fd)


def choose_token(token: str | None, token_file: Path) -> tuple[str, bool]:
    """The token to require, and whether it was generated (and written to ``token_file``)."""
    if token:
        return token, False
    token = secrets.token_urlsafe(32)
    write_token(token_file, token)
    return token, True


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port} ({exc.strerror}); "
                          "choose another --port") from None
    sock.listen(128)
    return sock


def serve(graph, *, token: str, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
          announce: Callable[[str], None] = print) -> None:
    """Serve ``graph`` until SIGINT/SIGTERM; ``announce`` is told the URL once listening."""
    try:  # fastapi and uvicorn are the optional ``service`` extra
        from graphmem.service.app import create_app
    except ImportError as exc:
        raise missing(exc.name or "fastapi", "service") from None

    app = create_app(graph, token)
    sock = bind(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    url = f"http://{'[' + bound_host + ']' if ':' in bound_host else bound_host}:{bound_port}"
    announce(url)
    run_app(app, sock)


def openapi_spec() -> dict[str, Any]:
    """The service's OpenAPI document (needs the ``service`` extra, not a store)."""
    try:  # fastapi is the optional ``service`` extra
        from graphmem.service.app import openapi_document
    except ImportError as exc:
        raise missing(exc.name or "fastapi", "service") from None
    return openapi_document()


def run_app(app: Any, sock: socket.socket) -> None:
    """Serve the ASGI ``app`` on the listening ``sock`` until SIGINT/SIGTERM."""
    try:
        import uvicorn
    except ImportError:
        raise missing("uvicorn", "service") from None
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_keep_alive=30)
    server = uvicorn.Server(config)
    # uvicorn re-raises a SIGTERM it caught once it has shut down; as an exception rather
    # than the default (instant death), it lets the caller close the graph, which stops
    # the embedded database server cleanly
    previous = signal.signal(signal.SIGTERM, _exit_on_signal)
    try:
        server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)

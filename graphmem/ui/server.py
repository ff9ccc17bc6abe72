"""The timeline's HTTP server: the page, its static files and JSON endpoints, on
127.0.0.1 only, behind a random token.

Every request must carry the token (``?token=`` in the URL the command prints, or the
``X-Graphmem-Token`` header the page's script sends); without it the answer is 403, as
it is for a Host header other than this address (a web page elsewhere cannot reach the
server through a rebound DNS name). Endpoints:

    GET  /                        the page
    GET  /static/<file>           its script and style sheet
    GET  /api/page?page=&size=&agent=   one page of the timeline (JSON)
    GET  /api/agents              the namespace's agents
    POST /api/act                 {"action": pin|unpin|forget|unforget, "id", "by"}
    POST /api/preview             {"ids": [...]}: what consolidating them would make
    POST /api/consolidate         {"ids": [...], "by"}: do it; {"id": the new fact}
"""

from __future__ import annotations

import hmac
import html
import json
import secrets
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from graphmem.errors import GraphmemError, InvalidInput
from graphmem.models import check_identifier
from graphmem.ui.timeline import PAGE_SIZE, Timeline

HOST = "127.0.0.1"
MAX_BODY = 1 << 20
STATIC = {"app.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8"}
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                               "connect-src 'self'; img-src 'self' data:; form-action 'none'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # the token is in the URL
}
# the page names an empty icon (data:): a browser's own /favicon.ico request carries no
# token and would be refused


def _static(name: str) -> bytes:
    return resources.files("graphmem.ui").joinpath("static", name).read_bytes()


class TimelineServer:
    """A running timeline server (``start`` it in a thread, or ``serve_forever``)."""

    def __init__(self, timeline: Timeline, *, port: int = 0, by: str,
                 agent: str | None = None, page_size: int = PAGE_SIZE) -> None:
        self.timeline = timeline
        self.by = check_identifier(by, "by")
        self.agent = check_identifier(agent, "agent") if agent is not None else None
        self.page_size = page_size
        self.token = secrets.token_urlsafe(24)
        self.httpd = ThreadingHTTPServer((HOST, port), _handler_for(self))
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.hosts = {f"{HOST}:{self.port}", f"localhost:{self.port}"}
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.token}"

    def start(self) -> "TimelineServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True,
                                        name="graphmem-ui")
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def page_html(self) -> bytes:
        page = _static("index.html").decode("utf-8")
        fields = {"TOKEN": self.token, "NS": self.timeline.ns, "BY": self.by,
                  "AGENT": self.agent or "", "SIZE": str(self.page_size)}
        for key, value in fields.items():
            page = page.replace("{{" + key + "}}", html.escape(value, quote=True))
        return page.encode("utf-8")


def _handler_for(server: TimelineServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "graphmem-ui"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass  # the URL holds the token: keep it out of logs

        def do_GET(self) -> None:  # noqa: N802
            self._route("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._route("POST")

        def _route(self, method: str) -> None:
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if not self._allowed(query):
                self._send(HTTPStatus.FORBIDDEN, b"forbidden: open the URL graphmem ui "
                           b"printed (it carries the token)\n", "text/plain; charset=utf-8")
                return
            try:
                self._dispatch(method, url.path, query)
            except InvalidInput as exc:
                self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
            except GraphmemError as exc:
                self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": str(exc)})

        def _allowed(self, query: dict[str, list[str]]) -> bool:
            given = self.headers.get("X-Graphmem-Token") or (query.get("token") or [""])[0]
            return (self.headers.get("Host") in server.hosts
                    and hmac.compare_digest(given.encode(), server.token.encode()))

        def _dispatch(self, method: str, path: str, query: dict[str, list[str]]) -> None:
            timeline = server.timeline
            if method == "GET" and path == "/":
                self._send(HTTPStatus.OK, server.page_html(), "text/html; charset=utf-8")
            elif method == "GET" and path.startswith("/static/") and path[8:] in STATIC:
                self._send(HTTPStatus.OK, _static(path[8:]), STATIC[path[8:]])
            elif method == "GET" and path == "/api/page":
                agent = (query.get("agent") or [""])[0] or None
                self._json(HTTPStatus.OK, timeline.page(
                    agent=agent, page=_int(query, "page", 1),
                    size=_int(query, "size", server.page_size)))
            elif method == "GET" and path == "/api/agents":
                self._json(HTTPStatus.OK, {"agents": timeline.agents()})
            elif method == "POST" and path == "/api/act":
                body = self._body()
                timeline.act(body.get("action"), body.get("id"), by=body.get("by"))
                self._json(HTTPStatus.OK, {"ok": True})
            elif method == "POST" and path == "/api/preview":
                self._json(HTTPStatus.OK, timeline.preview(self._body().get("ids")))
            elif method == "POST" and path == "/api/consolidate":
                body = self._body()
                fact = timeline.consolidate(body.get("ids"), by=body.get("by"))
                self._json(HTTPStatus.OK, {"id": fact})
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no {method} {path}"})

        def _body(self) -> dict[str, Any]:
            if self.headers.get_content_type() != "application/json":
                raise InvalidInput("send the request body as application/json")
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                raise InvalidInput(f"the request body is over {MAX_BODY} bytes")
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError as exc:
                raise InvalidInput(f"the request body is not JSON: {exc}") from None
            if not isinstance(body, dict):
                raise InvalidInput("the request body must be a JSON object")
            return body

        def _json(self, status: HTTPStatus, payload: Any) -> None:
            self._send(status, json.dumps(payload).encode("utf-8"),
                       "application/json; charset=utf-8")

        def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in SECURITY_HEADERS.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

    return Handler


def _int(query: dict[str, list[str]], name: str, default: int) -> int:
    raw = (query.get(name) or [""])[0]
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise InvalidInput(f"{name} must be a whole number, got {raw!r}") from None


def serve(timeline: Timeline, *, port: int = 0, by: str, agent: str | None = None,
          page_size: int = PAGE_SIZE) -> TimelineServer:
    """A server for ``timeline`` bound to 127.0.0.1 (``port`` 0: any free port), not yet
    serving: call ``start()`` (a thread) or ``serve_forever()``."""
    return TimelineServer(timeline, port=port, by=by, agent=agent, page_size=page_size)

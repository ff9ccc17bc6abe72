"""Which backend a URI names, and how to reach it.

    (no URI)                         the embedded store in GRAPHMEM_DATA
    embedded:///abs/path             the embedded store in that directory
    falkordb://[user:pw@]host[:6379][/graph]   a FalkorDB server (falkordbs, rediss: TLS)
    neo4j://host[:7687][/db], bolt://...       a Neo4j server

A bad URI is a ConfigError that shows the URI with its password hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import SplitResult, unquote, urlsplit

from graphmem.errors import ConfigError

NEO4J_SCHEMES = ("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc")
FALKORDB_SCHEMES = ("falkordb", "falkordbs", "redis", "rediss")
_TLS_SCHEMES = ("falkordbs", "rediss")
_DEFAULT_PORTS = {"falkordb": 6379, "neo4j": 7687}
_HELP = ("use no URI (the embedded store in GRAPHMEM_DATA), embedded:///path/to/dir, "
         "falkordb://host:6379, or neo4j://host:7687 / bolt://host:7687")


@dataclass(frozen=True)
class Target:
    """A parsed store URI."""

    backend: str  # "embedded", "falkordb" or "neo4j"
    uri: str
    host: str | None = None
    port: int | None = None
    user: str | None = None
    password: str | None = None
    path: Path | None = None
    database: str | None = None
    tls: bool = False

    @property
    def display(self) -> str:
        """The URI with its password hidden, for messages and status output."""
        return redact_uri(self.uri)


def redact_uri(uri: str) -> str:
    """``uri`` with the password (if any) replaced by ``***``."""
    try:
        parts = urlsplit(uri)
        if not parts.password:
            return uri
    except ValueError:
        return uri.split("@", 1)[-1] if "@" in uri else uri
    netloc = f"{parts.username}:***@{parts.netloc.rsplit('@', 1)[1]}"
    return parts._replace(netloc=netloc).geturl()


def parse_uri(uri: str | None) -> Target:
    """Parse ``uri``; None or empty means the embedded store."""
    if not uri or not uri.strip():
        return Target("embedded", "embedded")
    uri = uri.strip()
    shown = redact_uri(uri)
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"bad store URI {shown!r}: {exc}; {_HELP}") from None
    scheme = parts.scheme.lower()
    if scheme == "embedded":
        return _embedded_target(uri, parts, shown)
    if scheme in FALKORDB_SCHEMES:
        backend = "falkordb"
    elif scheme in NEO4J_SCHEMES:
        backend = "neo4j"
    else:
        raise ConfigError(
            f"unsupported store URI scheme {parts.scheme or '(none)'!r} in {shown!r}; {_HELP}")
    if not parts.hostname:
        raise ConfigError(f"store URI {shown!r} names no host; {_HELP}")
    if port == 0:
        raise ConfigError(f"store URI {shown!r} has port 0; give the server's port "
                          f"(default {_DEFAULT_PORTS[backend]}): {_HELP}")
    return Target(backend, uri, host=parts.hostname, port=port or _DEFAULT_PORTS[backend],
                  user=unquote(parts.username) if parts.username else None,
                  password=unquote(parts.password) if parts.password else None,
                  database=parts.path.strip("/") or None, tls=scheme in _TLS_SCHEMES)


def _embedded_target(uri: str, parts: SplitResult, shown: str) -> Target:
    # embedded://dir would put "dir" in the host part and silently ignore it
    if parts.netloc and parts.netloc != "localhost":
        raise ConfigError(
            f"store URI {shown!r} puts {parts.netloc!r} where a host goes; write the "
            f"directory after three slashes (embedded:///abs/path) or use --data-dir")
    path = Path(unquote(parts.path)) if parts.path else None
    return Target("embedded", uri, path=path)

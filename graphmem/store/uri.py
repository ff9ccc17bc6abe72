"""Which backend a URI names, and how to reach it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from graphmem.errors import ConfigError

NEO4J_SCHEMES = ("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc")
FALKORDB_SCHEMES = ("falkordb", "falkordbs", "redis")
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


def parse_uri(uri: str | None) -> Target:
    """Parse ``uri``; None or empty means the embedded store."""
    if not uri:
        return Target("embedded", "embedded")
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"bad store URI {uri!r}: {exc}; {_HELP}") from None
    scheme = parts.scheme.lower()
    if scheme == "embedded":
        path = Path(unquote(parts.path)) if parts.path else None
        return Target("embedded", uri, path=path)
    if scheme in FALKORDB_SCHEMES:
        if not parts.hostname:
            raise ConfigError(f"store URI {uri!r} names no host; {_HELP}")
        return Target("falkordb", uri, host=parts.hostname, port=port or 6379,
                      user=unquote(parts.username) if parts.username else None,
                      password=unquote(parts.password) if parts.password else None,
                      database=parts.path.strip("/") or None)
    if scheme in NEO4J_SCHEMES:
        if not parts.hostname:
            raise ConfigError(f"store URI {uri!r} names no host; {_HELP}")
        return Target("neo4j", uri, host=parts.hostname, port=port or 7687,
                      user=unquote(parts.username) if parts.username else None,
                      password=unquote(parts.password) if parts.password else None,
                      database=parts.path.strip("/") or None)
    raise ConfigError(f"unsupported store URI scheme {parts.scheme or '(none)'!r} in {uri!r}; {_HELP}")

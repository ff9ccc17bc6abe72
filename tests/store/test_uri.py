"""Store URIs: what each names, and a ConfigError (password hidden) for a bad one."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.errors import ConfigError
from graphmem.store.uri import parse_uri, redact_uri


@pytest.mark.parametrize("uri", [None, "", "  "])
def test_no_uri_is_the_embedded_store(uri):
    assert parse_uri(uri).backend == "embedded"


def test_embedded_uri_names_a_directory():
    target = parse_uri("embedded:///srv/memory%20data")
    assert (target.backend, target.path) == ("embedded", Path("/srv/memory data"))


@pytest.mark.parametrize("uri, expected", [
    ("falkordb://db.example:6380/agents", ("falkordb", "db.example", 6380, "agents", False)),
    ("falkordb://db.example", ("falkordb", "db.example", 6379, None, False)),
    ("falkordbs://db.example", ("falkordb", "db.example", 6379, None, True)),
    ("rediss://db.example:7000", ("falkordb", "db.example", 7000, None, True)),
    ("neo4j://graph.example", ("neo4j", "graph.example", 7687, None, False)),
    ("bolt+s://graph.example:7688/mem", ("neo4j", "graph.example", 7688, "mem", False)),
])
def test_server_uris(uri, expected):
    t = parse_uri(uri)
    assert (t.backend, t.host, t.port, t.database, t.tls) == expected


def test_credentials_are_unquoted():
    t = parse_uri("falkordb://ann:p%40ss@db.example:6379")
    assert (t.user, t.password) == ("ann", "p@ss")


@pytest.mark.parametrize("uri, fragment", [
    ("mysql://db:3306", "unsupported store URI scheme 'mysql'"),
    ("localhost:6379", "unsupported store URI scheme"),
    ("/just/a/path", "unsupported store URI scheme '(none)'"),
    ("falkordb://:6379", "names no host"),
    ("neo4j:///db", "names no host"),
    ("falkordb://h:notaport", "bad store URI"),
    ("falkordb://h:70000", "bad store URI"),
    ("falkordb://h:0", "port 0"),
    ("embedded://relative/dir", "embedded:///abs/path"),
])
def test_bad_uris(uri, fragment):
    with pytest.raises(ConfigError, match="falkordb://host:6379|embedded:///") as err:
        parse_uri(uri)
    assert fragment in str(err.value)


def test_error_hides_the_password():
    with pytest.raises(ConfigError) as err:
        parse_uri("falkordb://ann:s3cret@h:notaport")
    assert "s3cret" not in str(err.value)
    assert "ann:***@h" in str(err.value)


@pytest.mark.parametrize("uri, shown", [
    ("falkordb://ann:s3cret@h:6379/g", "falkordb://ann:***@h:6379/g"),
    ("neo4j://h:7687", "neo4j://h:7687"),
    ("falkordb://ann@h", "falkordb://ann@h"),
])
def test_redact_uri(uri, shown):
    assert redact_uri(uri) == shown


def test_store_shows_its_uri_without_the_password(embedded_graph):
    from graphmem.store.falkordb import FalkorDBStore

    socket = str(embedded_graph._store.server.socket_path)
    store = FalkorDBStore(socket_path=socket, uri="falkordb://ann:s3cret@db.example:6379")
    try:
        assert store.uri == "falkordb://ann:***@db.example:6379"
    finally:
        store.close()

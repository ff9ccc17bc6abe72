"""The Neo4j adapter without a server: reaching it, translating errors, plain values.

What needs a running Neo4j is in tests/store/test_contract.py (the ``backend``
fixture's neo4j leg) and tests/store/test_neo4j_live.py; both skip with the reason
when NEO4J_URI is unset and no Docker engine can start neo4j:5.
"""

from __future__ import annotations

import datetime as dt
import time

import pytest
from dateutil.relativedelta import relativedelta
from neo4j import time as ntime
from neo4j.exceptions import Neo4jError
from neo4j.graph import Graph, Node, Path
from neo4j.spatial import CartesianPoint, WGS84Point

from graphmem import MemoryGraph
from graphmem.errors import (
    ConfigError,
    ConstraintViolation,
    QueryFailed,
    ReadOnlyViolation,
    StoreUnavailable,
)
from graphmem.store.neo4j import Neo4jStore, _version_tuple, driver_uri, to_plain, translate
from graphmem.store.uri import parse_uri


@pytest.mark.parametrize("uri", ["bolt://127.0.0.1:1", "neo4j://127.0.0.1:1"])
def test_closed_port_is_store_unavailable_fast(uri):
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as err:
        MemoryGraph.open(uri=uri, user="neo4j", password="graphmem-dev")
    assert time.monotonic() - started < 5
    message = str(err.value)
    assert "127.0.0.1:1" in message and "docker compose up -d" in message


def test_unknown_host_is_store_unavailable():
    with pytest.raises(StoreUnavailable, match="graphmem-no-such-host.invalid"):
        Neo4jStore(parse_uri("bolt://graphmem-no-such-host.invalid:7687"), "neo4j", "x",
                   connection_timeout_s=3)


def test_password_in_uri_never_reaches_messages():
    with pytest.raises(StoreUnavailable) as err:
        Neo4jStore(parse_uri("neo4j://neo4j:s3cret@127.0.0.1:1/memories"))
    assert "s3cret" not in str(err.value)


def test_non_neo4j_target_is_refused():
    with pytest.raises(ConfigError, match="not a Neo4j URI"):
        Neo4jStore(parse_uri("falkordb://localhost:6379"))


def test_driver_uri_drops_credentials_and_database():
    assert driver_uri(parse_uri("neo4j+s://u:p@DB.example.com:7688/mydb")) == \
        "neo4j+s://db.example.com:7688"
    assert driver_uri(parse_uri("bolt://[::1]/x")) == "bolt://[::1]:7687"


def server_error(code: str, message: str = "boom") -> Neo4jError:
    # How the driver turns a server FAILURE message into an exception (the class
    # follows the code), so the mapping below is tested against the real classes.
    hydrate = getattr(Neo4jError, "_hydrate_neo4j", None) or Neo4jError.hydrate  # driver 6 / 5
    return hydrate(code=code, message=message)


@pytest.mark.parametrize("code, expected, says", [
    ("Neo.ClientError.Statement.AccessMode", ReadOnlyViolation, "write=True"),
    ("Neo.ClientError.Schema.ConstraintValidationFailed", ConstraintViolation, "not applied"),
    ("Neo.DatabaseError.Schema.ConstraintCreationFailed", ConstraintViolation, "duplicates"),
    ("Neo.ClientError.Security.Unauthorized", StoreUnavailable, "GRAPHMEM_PASSWORD"),
    ("Neo.ClientError.Database.DatabaseNotFound", StoreUnavailable, "no such database"),
    ("Neo.ClientError.Statement.ArithmeticError", QueryFailed, "nothing was written"),
    ("Neo.ClientError.Statement.SyntaxError", QueryFailed, "nothing was written"),
])
def test_server_errors_translate(code, expected, says):
    err = translate(server_error(code), "CREATE (:Memory {ns: 'a', id: 'x'})\nRETURN 1",
                    "bolt://h:7687")
    assert type(err) is expected
    assert says in str(err)
    if expected is not ReadOnlyViolation:  # that one says what to do instead
        assert "boom" in str(err)
    if isinstance(err, QueryFailed) and not isinstance(err, StoreUnavailable):
        assert "CREATE (:Memory {ns: 'a', id: 'x'})" in str(err)


def test_lost_commit_says_the_outcome_is_unknown():
    from neo4j.exceptions import IncompleteCommit

    err = translate(IncompleteCommit("connection reset"), "CREATE (:Agent)", "bolt://h:7687")
    assert isinstance(err, StoreUnavailable) and "whole or not at all" in str(err)


def test_nodes_relationships_and_paths_are_plain():
    graph = Graph()
    a = Node(graph, "4:x:1", 1, ["Memory", "Agent"], {"ns": "t", "id": "a"})
    b = Node(graph, "4:x:2", 2, ["Memory"], {"ns": "t", "id": "b"})
    rel = graph.relationship_type("OWNS")(graph, "5:x:1", 1, {"via": "told"})
    rel._start_node, rel._end_node = a, b
    assert to_plain(a) == {"_labels": ["Agent", "Memory"], "ns": "t", "id": "a"}
    assert to_plain(rel) == {"_type": "OWNS", "via": "told"}
    assert to_plain(Path(a, rel)) == [to_plain(a), to_plain(b)]
    assert to_plain({"xs": [a]}) == {"xs": [to_plain(a)]}


def test_temporal_and_spatial_values_are_plain():
    tz = dt.timezone.utc
    assert to_plain(ntime.DateTime(2024, 5, 6, 7, 8, 9, tzinfo=tz)) == \
        dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=tz)
    assert to_plain(ntime.Date(2024, 5, 6)) == dt.date(2024, 5, 6)
    assert to_plain(ntime.Time(7, 8, 9)) == dt.time(7, 8, 9)
    assert to_plain(ntime.Duration(months=14, days=3, seconds=5)) == \
        relativedelta(years=1, months=2, days=3, seconds=5)
    assert to_plain(WGS84Point((13.4, 52.5))) == {"latitude": 52.5, "longitude": 13.4}
    assert to_plain(CartesianPoint((1.0, 2.0))) == {"x": 1.0, "y": 2.0}


@pytest.mark.parametrize("version, new_enough", [
    ("5.26.1", True), ("5.15.0", True), ("5.14.0", False), ("4.4.30", False),
    ("2025.01.0", True), ("5.26.0-aura", True),
])
def test_version_gate(version, new_enough):
    assert (_version_tuple(version) >= (5, 15)) is new_enough

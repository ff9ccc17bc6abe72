"""Shared fixtures: real stores, started by the library, closed after every test."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest

from graphmem import Embedder, MemoryGraph
from graphmem.store.embedded import pid_alive

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = (REPO.parent / "shared" / "data").resolve()


def neo4j_uri() -> tuple[str | None, str]:
    """A Neo4j URI to test against, or None and the reason there is none."""
    if os.environ.get("NEO4J_URI"):
        return os.environ["NEO4J_URI"], ""
    if not shutil.which("docker"):
        return None, "no NEO4J_URI set and no docker command to start neo4j:5"
    try:
        import docker

        docker.from_env().ping()
    except Exception as exc:  # noqa: BLE001 - any failure means no engine
        return None, f"no NEO4J_URI set and no Docker engine to start neo4j:5 ({type(exc).__name__})"
    return "testcontainers", ""


@pytest.fixture(scope="session")
def neo4j_server():
    """A Neo4j 5 server: NEO4J_URI, or one started by testcontainers; else skip."""
    uri, reason = neo4j_uri()
    if uri is None:
        pytest.skip(reason)
    if uri != "testcontainers":
        yield {"uri": uri, "user": os.environ.get("NEO4J_USER", "neo4j"),
               "password": os.environ.get("NEO4J_PASSWORD")}
        return
    from testcontainers.neo4j import Neo4jContainer

    with Neo4jContainer("neo4j:5") as container:
        yield {"uri": container.get_connection_url(), "user": "neo4j",
               "password": container.password}


@pytest.fixture(params=["embedded", "neo4j"])
def backend(request, tmp_path):
    """Open settings for each backend; the Neo4j leg skips with its reason."""
    if request.param == "embedded":
        return {"data_dir": tmp_path / "data"}
    server = request.getfixturevalue("neo4j_server")
    return {"uri": server["uri"], "user": server["user"], "password": server["password"]}


@pytest.fixture(scope="session")
def embedder():
    """One real embedder for the session (its cache is shared by the tests' graphs)."""
    return Embedder()


@pytest.fixture
def graph(backend, embedder):
    """A MemoryGraph on each backend, empty, closed after the test."""
    g = MemoryGraph.open(**backend, embedder=embedder)
    if "uri" in backend:  # a shared server: start from an empty graph
        g.cypher("MATCH (n) WHERE NOT n:GraphmemSchema AND NOT n:GraphmemUpgrade "
                 "DETACH DELETE n", write=True)
    yield g
    g.close()


@pytest.fixture
def embedded_graph(tmp_path, embedder):
    """A MemoryGraph on the embedded store in a fresh directory."""
    g = MemoryGraph.open(data_dir=tmp_path / "data", embedder=embedder)
    yield g
    g.close()


@pytest.fixture(autouse=True)
def stop_leftover_servers(tmp_path):
    """After each test, stop any embedded server the test left running in tmp_path."""
    yield
    for pid_file in tmp_path.rglob("falkordb.pid"):
        try:
            pid = int(pid_file.read_text().strip())
        except (OSError, ValueError):
            continue
        if pid_alive(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The read-only evaluation data in ../shared/data."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"evaluation data not found at {SHARED_DATA}")
    return SHARED_DATA

"""Several ``graphmem serve`` instances on one store, each with its own views.

What one instance writes, another recalls at its next call (each recall reads the
namespace's version from the store and catches its view up with ``changed_since``).
Writers racing through different instances go through the guarded write path: every
equivalent statement ends as one memory owned by every depositor, none lost, none twice.
The replicated variant (one instance on the primary, one reading from a replica) starts
two servers more and two services: it is marked slow.
"""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from graphmem.service.client import Client
from tests.service.running import needs

FACTS = [f"The crane at berth {i} was inspected." for i in range(8)]


@pytest.fixture(scope="module")
def instances(tmp_path_factory):
    """Two services on one embedded store (the second process uses the running server)."""
    needs("fastapi", "uvicorn")
    from graphmem.service.spawn import spawned_service

    root = tmp_path_factory.mktemp("instances")
    data = root / "data"
    with spawned_service(data, token_file=root / "a.token") as a, \
            spawned_service(data, token_file=root / "b.token") as b, \
            Client(a.url, a.token) as ca, Client(b.url, b.token) as cb:
        yield ca, cb


def stored(client: Client, ns: str) -> list[tuple[str, list[str]]]:
    rows = client.cypher("MATCH (m:Memory {ns: $ns}) OPTIONAL MATCH (a:Agent)-[:OWNS]->(m) "
                         "RETURN m.text AS text, collect(a.id) AS owners ORDER BY text",
                         {"ns": ns})
    return [(r["text"], sorted(r["owners"])) for r in rows]


def race(clients: list[Client], ns: str) -> list[str]:
    """Each client deposits every fact as its own agent, all at once; the agents."""
    agents = [f"agent{i}" for i in range(len(clients))]

    def deposit(client: Client, agent: str) -> None:
        for fact in FACTS:
            client.remember(agent, fact, ns=ns)

    with ThreadPoolExecutor(len(clients)) as pool:
        list(pool.map(deposit, clients, agents))  # re-raises any error
    return agents


def check_one_memory_per_fact(readers: list[Client], ns: str, agents: list[str]) -> None:
    expected = [(fact, sorted(agents)) for fact in sorted(FACTS)]
    for reader in readers:
        assert stored(reader, ns) == expected  # one memory per fact, every owner kept
        for agent in agents:  # and each instance's view holds each, for every owner
            hits = reader.recall(agent, "Which crane was inspected?", ns=ns, k=2 * len(FACTS))
            assert sorted(h.text for h in hits) == sorted(FACTS)
            assert all(sorted(h.owners) == sorted(agents) for h in hits)


def test_what_one_instance_remembers_the_other_recalls_at_once(instances):
    a, b = instances
    ns = f"two-{uuid.uuid4().hex[:8]}"
    assert b.recall("ines", "When can ships leave?", ns=ns) == []  # b's view exists, empty
    a.remember("ines", "No ship leaves Port Sella before noon.", witnesses=["mara"], ns=ns)
    hits = b.recall("mara", "When can ships leave?", ns=ns, k=1)  # no wait, no sync call
    assert hits[0].text == "No ship leaves Port Sella before noon."
    assert sorted(hits[0].owners) == ["ines", "mara"]
    b.remember("mara", "The fog lifts at eleven.", ns=ns)
    # not ines's: whatever ines's recall returns, mara's memory is not among it (a
    # question no memory is near may bring ines's own nearest memory: the route gate)
    assert "The fog lifts at eleven." not in [
        h.text for h in a.recall("ines", "When does the fog lift?", ns=ns, k=5)]
    assert a.recall("mara", "When does the fog lift?", ns=ns, k=1)[0].text == \
        "The fog lifts at eleven."
    assert a.stats(ns=ns)["entries"] == b.stats(ns=ns)["entries"] == 2


def test_writers_racing_through_two_instances_lose_and_duplicate_nothing(instances):
    a, b = instances
    ns = f"race-{uuid.uuid4().hex[:8]}"
    agents = race([a, b, a, b], ns)
    check_one_memory_per_fact([a, b], ns, agents)


@pytest.mark.slow
def test_an_instance_reading_from_a_replica_agrees_with_one_on_the_primary(tmp_path):
    needs("fastapi", "uvicorn")
    from graphmem.service.spawn import spawned_service
    from graphmem.store.local_servers import local_server

    ns = "replicated"
    with local_server(tmp_path / "primary") as primary, \
            local_server(tmp_path / "replica", replica_of=primary) as replica, \
            spawned_service(tmp_path / "a", uri=primary.uri) as sa, \
            spawned_service(tmp_path / "b", uri=primary.uri, read_uri=replica.uri) as sb, \
            Client(sa.url, sa.token) as a, Client(sb.url, sb.token) as b:
        a.remember("ines", "No ship leaves Port Sella before noon.", ns=ns)
        with primary.client() as c:  # b has written nothing: it sees a once the replica has it
            assert c.execute_command("WAIT", 1, 5000) == 1
        assert b.recall("ines", "When can ships leave?", ns=ns, k=1)[0].text == \
            "No ship leaves Port Sella before noon."
        agents = race([a, b, a, b], f"{ns}-race")
        with primary.client() as c:
            assert c.execute_command("WAIT", 1, 5000) == 1
        check_one_memory_per_fact([a, b], f"{ns}-race", agents)

"""The service against a real ``graphmem serve`` process: results, errors, auth, retries."""

from __future__ import annotations

import stat
import uuid

import httpx
import pytest

from graphmem.errors import (
    ConfigError,
    InvalidInput,
    ReadOnlyViolation,
    StoreUnavailable,
)
from graphmem.models import Hit, RememberResult
from graphmem.service.client import AsyncClient, Client
from graphmem.service.wire import IDEMPOTENCY_HEADER


def fresh_ns() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


def test_remember_and_recall_return_the_public_models(client):
    ns = fresh_ns()
    result = client.remember("ada", "The launch moved to Friday.", witnesses=["grace"], ns=ns,
                             at="2024-05-08")
    assert isinstance(result, RememberResult) and result.ns == ns
    assert [a.action for a in result.atoms] == ["created"]
    hits = client.recall("grace", "When is the launch?", ns=ns, explain=True)
    assert hits and isinstance(hits[0], Hit)
    assert hits[0].memory_id == result.atoms[0].memory_id
    assert set(hits[0].owners) == {"ada", "grace"}
    assert hits[0].explain and "weights" in hits[0].explain
    assert client.recall("nobody", "When is the launch?", ns=ns) == []


def test_errors_come_back_as_the_same_classes(client, service):
    with pytest.raises(InvalidInput, match="text is empty"):
        client.remember("ada", "   ", ns=fresh_ns())
    with pytest.raises(InvalidInput, match="k must be positive"):
        client.recall("ada", "anything", k=0)
    with pytest.raises(ReadOnlyViolation):
        client.cypher("CREATE (:Memory {ns: 'x', id: 'y'})")
    with pytest.raises(InvalidInput, match="read-only"):
        client.cypher("MATCH (n) RETURN n", write=True)
    with pytest.raises(InvalidInput, match="no query named"):
        client.query("no/such_query")
    with pytest.raises(ConfigError, match="bearer token"):
        Client(service.url, "wrong-token", retries=0).stats()
    with pytest.raises(StoreUnavailable, match="not reachable"):
        Client("http://127.0.0.1:9", "t", retries=1, backoff=0).stats()


def test_a_malformed_request_is_invalid_input(service):
    response = httpx.post(f"{service.url}/v1/remember", json={"text": "no agent"},
                          headers={"Authorization": f"Bearer {service.token}"})
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "InvalidInput"
    assert "agent" in response.json()["error"]["message"]


def test_every_route_needs_the_token(service):
    assert httpx.get(f"{service.url}/v1/health").status_code == 401
    assert httpx.get(f"{service.url}/openapi.json").status_code == 401
    spec = httpx.get(f"{service.url}/openapi.json",
                     headers={"Authorization": f"Bearer {service.token}"}).json()
    assert {"/v1/remember", "/v1/recall", "/v1/who_knew/owners_of", "/v1/stats",
            "/v1/cypher", "/v1/unmerge", "/v1/agents"} <= set(spec["paths"])
    assert "HTTPBearer" in spec["components"]["securitySchemes"]


def test_generated_token_file_is_private(service):
    assert stat.S_IMODE(service.token_file.stat().st_mode) == 0o600


def test_a_repeated_idempotency_key_replays_the_first_answer(service, client):
    ns = fresh_ns()
    headers = {"Authorization": f"Bearer {service.token}", IDEMPOTENCY_HEADER: uuid.uuid4().hex}
    body = {"agent": "ada", "text": "The vault code changed on Monday.", "ns": ns}
    first = httpx.post(f"{service.url}/v1/remember", json=body, headers=headers).json()
    again = httpx.post(f"{service.url}/v1/remember", json=body, headers=headers).json()
    assert first == again
    rows = client.cypher("MATCH (m:Memory {ns: $ns}) RETURN count(m) AS n", {"ns": ns})
    assert rows == [{"n": 1}]
    other = httpx.post(f"{service.url}/v1/remember", headers=headers,
                       json={**body, "text": "Something else entirely."})
    assert other.status_code == 400 and "different request" in other.json()["error"]["message"]


def test_who_knew_stats_agents_and_unmerge(client):
    ns = fresh_ns()
    assert client.register_agent("ada", kind="ai", name="Ada", ns=ns)["kind"] == "ai"
    client.remember("ada", "The tower bell rang at dawn.", ns=ns, at="2024-01-02")
    merged = client.remember("bob", "The tower bell rang at dawn.", told_by="ada", ns=ns,
                             at="2024-01-02")
    assert merged.atoms[0].action == "merged"
    owners = client.owners_of("tower bell", ns=ns)
    assert {r["agent"] for r in owners} == {"ada", "bob"}
    assert [r["source"] for r in client.learned_from("bob", ns=ns)] == ["ada"]
    assert client.knew_at("ada", "2024-06-01", ns=ns)
    assert client.shared_most(ns=ns)[0]["shared"] == 1
    stats = client.stats(ns=ns)
    assert stats["entries"] == 1 and stats["max_owners"] == 2
    restored = client.unmerge(merged.atoms[0].memory_id, ns=ns)
    assert restored != merged.atoms[0].memory_id
    assert client.stats(ns=ns)["entries"] == 2
    assert client.status()["backend"] == "falkordb"
    assert "who_knew/owners_of" in client.query_names()


def test_remember_many_keeps_order(client):
    ns = fresh_ns()
    results = client.remember_many([{"agent": "ada", "text": f"Crate {n} went to pier {n}."}
                                    for n in range(5)], ns=ns)
    assert [r.atoms[0].text for r in results] == [f"Crate {n} went to pier {n}." for n in range(5)]


def test_async_client_has_the_same_methods(service):
    import asyncio

    async def scenario():
        ns = fresh_ns()
        async with AsyncClient(service.url, service.token) as memory:
            done = await memory.remember("ada", "The ferry leaves at noon.", ns=ns)
            hits = await memory.recall("ada", "When does the ferry leave?", ns=ns)
            with pytest.raises(InvalidInput):
                await memory.recall("ada", "", ns=ns)
            return done, hits

    done, hits = asyncio.run(scenario())
    assert hits[0].memory_id == done.atoms[0].memory_id


def test_the_openapi_document_prints_without_a_store():
    import json

    from tests.service.running import needs

    needs("fastapi")
    from click.testing import CliRunner

    from graphmem.cli import cli

    result = CliRunner().invoke(cli, ["serve", "--print-openapi"])
    assert result.exit_code == 0, result.output
    spec = json.loads(result.output)
    assert spec["info"]["title"] == "graphmem"
    recall = spec["paths"]["/v1/recall"]["post"]
    assert recall["responses"]["200"]["content"]["application/json"]["schema"]["items"]["$ref"].endswith("/Hit")


def test_curation_and_decay_through_the_service(client):
    from graphmem.lifecycle.decay import DecaySettings

    ns = fresh_ns()
    first = client.remember("ada", "The east door sticks in winter.", ns=ns).atoms[0].memory_id
    client.pin(first, by="ada", ns=ns)
    client.unpin(first, by="ada", ns=ns)
    client.forget(first, by="ada", ns=ns)
    assert client.recall("ada", "Which door sticks?", ns=ns) == []
    client.unforget(first, by="ada", ns=ns)
    assert client.recall("ada", "Which door sticks?", ns=ns)[0].memory_id == first
    corrected = client.correct(first, "The east door sticks in wet weather.", by="ada", ns=ns)
    assert corrected != first
    assert client.recall("ada", "Which door sticks?", ns=ns)[0].text == \
        "The east door sticks in wet weather."
    assert corrected in client.working_memory("ada", ns=ns)
    how_to = client.remember("ada", "To open the east door, lift the handle first.", ns=ns,
                             kind="procedural")
    assert how_to.atoms[0].action == "created"
    client.set_task("ada", "fixing doors", ns=ns)
    settings = client.set_decay(ns=ns, threshold=0.2)
    assert isinstance(settings, DecaySettings) and settings.threshold == 0.2
    assert client.maintain(ns=ns)["scored"] >= 1
    hit = client.recall("ada", "How do I open the east door?", ns=ns)[0]
    scores = client.utilities([hit.memory_id], agent="ada", ns=ns)[hit.memory_id]
    assert set(scores) == set(hit.utility)  # recency moves with the clock between the calls
    assert all(abs(scores[k] - hit.utility[k]) < 0.01 for k in scores)
    with pytest.raises(InvalidInput):
        client.utilities(["no-such-memory"], ns=ns)
    with pytest.raises(InvalidInput):
        client.set_decay(ns=ns, threshold=7.0)

"""Many clients at once, with lost responses: nothing lost, nothing written twice.

8 clients x 25 mixed calls here; ``benchmarks/service_bench.py`` runs 8 x 500 and times it.
Every fifth response of a write is dropped after the service applied it (the transport
raises as a broken connection would), so each such call is retried with its key.
"""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx

from graphmem.service.client import Client

CLIENTS, CALLS = 8, 25


class LosingTransport(httpx.HTTPTransport):
    """Delivers every request, but loses every ``nth`` response to a write."""

    def __init__(self, nth: int) -> None:
        super().__init__()
        self.nth, self.seen, self.lost = nth, 0, 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if "Idempotency-Key" not in request.headers:
            return response
        self.seen += 1
        lose = self.seen % self.nth == 0
        self.lost += lose
        if lose:
            response.read()
            response.close()
            raise httpx.ReadError("response lost on the way back (simulated)")
        return response


def agent_session(service, ns: str, n: int, transport: LosingTransport) -> list[str]:
    """One client: mostly remembers, some recalls; returns the texts it deposited."""
    texts = []  # the client owns (and closes) its transport
    with Client(service.url, service.token, transport=transport, backoff=0.01) as memory:
        for i in range(CALLS):
            if i % 3 == 2:
                hits = memory.recall(f"agent{n}", f"Which parcel went to dock {i - 1}?", ns=ns, k=3)
                assert all(f"agent{n}" in h.owners for h in hits)
            else:
                text = f"Agent {n} sent parcel {n * 1000 + i} to dock {i}."
                result = memory.remember(f"agent{n}", text, ns=ns)
                assert [a.text for a in result.atoms] == [text]
                texts.append(text)
    return texts


def test_concurrent_clients_lose_nothing_and_duplicate_nothing(service, client):
    ns = f"conc-{uuid.uuid4().hex[:8]}"
    transports = [LosingTransport(nth=5) for _ in range(CLIENTS)]
    with ThreadPoolExecutor(CLIENTS) as pool:
        sent = [t for texts in pool.map(lambda n: agent_session(service, ns, n, transports[n]),
                                        range(CLIENTS)) for t in texts]
    assert all(t.lost > 0 for t in transports)  # retries really happened
    rows = client.cypher("MATCH (a:Agent)-[:OWNS]->(m:Memory {ns: $ns}) "
                         "RETURN m.text AS text, collect(a.id) AS owners", {"ns": ns})
    stored = sorted(r["text"] for r in rows)
    assert stored == sorted(sent)  # every deposit once: none lost, none doubled
    for row in rows:
        n = row["text"].split()[1]
        assert row["owners"] == [f"agent{n}"]

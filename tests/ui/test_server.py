"""The timeline server: the token, paging in time order, each act reaching the store
through the curation API with the person as actor, and another handle's change on reload."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import MemoryGraph


def items(client, **query) -> list[dict]:
    qs = "&".join(f"{k}={v}" for k, v in query.items())
    return client.json("GET", f"/api/page?{qs}")["items"]


def by_text(client, fragment: str) -> dict:
    return next(i for i in items(client) if fragment in i["text"])


def test_every_request_needs_the_token(client):
    for path in ("/", "/static/app.js", "/api/page", "/api/agents"):
        assert client.request("GET", path, token=None)[0] == 403
        assert client.request("GET", path, token="not-the-token")[0] == 403
        assert client.request("GET", path)[0] == 200
    status, _ = client.request("POST", "/api/act", {"action": "pin", "id": "x", "by": "a"},
                               token=None)
    assert status == 403
    header = {"X-Graphmem-Token": client.token}
    assert client.request("GET", "/api/agents", token=None, headers=header)[0] == 200


def test_a_foreign_host_header_is_refused(client):
    status, _ = client.request("GET", "/api/agents", headers={"Host": "evil.example:80"})
    assert status == 403


def test_the_page_carries_the_token_and_the_actor(client):
    status, body = client.request("GET", "/")
    assert status == 200
    page = body.decode()
    assert f'data-token="{client.token}"' in page and 'data-by="tester"' in page


def test_the_server_listens_on_the_loopback_address_only(server):
    assert server.httpd.server_address[0] == "127.0.0.1"
    assert server.url.startswith(f"http://127.0.0.1:{server.port}/?token=")


def test_the_whole_timeline_is_in_time_order(client):
    whole = items(client)
    assert len(whole) >= 6  # seven deposits; the two about running may merge
    assert [i["t"] for i in whole] == sorted(i["t"] for i in whole)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.integers(1, 9), beyond=st.integers(1, 5))
def test_pages_of_any_size_cover_the_timeline_once_in_order(client, size, beyond):
    whole = [i["id"] for i in items(client)]
    first = client.json("GET", f"/api/page?size={size}&page=1")
    assert first["total"] == len(whole) and first["pages"] == -(-len(whole) // size)
    seen = []
    for page in range(1, first["pages"] + 1):
        got = items(client, size=size, page=page)
        assert 1 <= len(got) <= size
        seen += [i["id"] for i in got]
    assert seen == whole
    past = client.json("GET", f"/api/page?size={size}&page={first['pages'] + beyond}")
    assert past["page"] == first["pages"]  # past the end: the last page


def test_each_memory_shows_its_utility_owners_and_supersession(client):
    berlin, munich = by_text(client, "Berlin"), by_text(client, "Munich")
    assert berlin["status"] == "superseded" and berlin["superseded_by"] == munich["id"]
    assert munich["status"] == "current"
    assert any(c["id"] == munich["id"] for c in berlin["conflicts"])
    cat = by_text(client, "Miso")
    assert cat["owners"] == ["ana", "ben"]
    for item in items(client):
        u = item["utility"]
        assert set(u) == {"S", "R", "E", "U"} and 0 <= u["R"] <= 1 and u["U"] == 0.5


def test_an_agent_sees_only_its_own_memories(client):
    ben = items(client, agent="ben")
    assert ben and all("ben" in i["owners"] for i in ben)
    assert client.json("GET", "/api/agents")["agents"] == ["ana", "ben"]


def test_pin_forget_and_undo_reach_the_store_as_the_person(client, graph):
    cello = by_text(client, "cello")
    assert client.json("POST", "/api/act", {"action": "pin", "id": cello["id"],
                                            "by": "maria"}) == {"ok": True}
    pinned = by_text(client, "cello")
    assert pinned["pinned"] and pinned["utility"]["U"] == 1.0
    client.json("POST", "/api/act", {"action": "forget", "id": cello["id"], "by": "maria"})
    assert by_text(client, "cello")["forgotten"]
    assert not graph.recall("ben", "who plays the cello?", k=5) or all(
        h.memory_id != cello["id"] for h in graph.recall("ben", "who plays the cello?", k=5))
    client.json("POST", "/api/act", {"action": "unforget", "id": cello["id"], "by": "maria"})
    row = graph.cypher("MATCH (m:Memory {id: $id}) RETURN m.pinned AS p, m.forgotten AS f",
                       {"id": cello["id"]})[0]
    assert row == {"p": True, "f": False}
    acts = graph.cypher("MATCH (o:OpLog {memory: $id}) RETURN o.op AS op, o.agent AS by "
                        "ORDER BY o.seq", {"id": cello["id"]})
    assert [(a["op"], a["by"]) for a in acts][-3:] == [
        ("pin", "maria"), ("forget", "maria"), ("unforget", "maria")]


def test_consolidate_previews_then_makes_the_fact_the_api_makes(client, graph):
    runs = [i for i in items(client) if "river" in i["text"]]
    ids = [i["id"] for i in runs]
    preview = client.json("POST", "/api/preview", {"ids": ids})
    assert preview["text"] in [i["text"] for i in runs]
    assert graph.cypher("MATCH (m:Memory {kind: 'semantic'}) RETURN count(m) AS n")[0]["n"] == 0
    fact = client.json("POST", "/api/consolidate", {"ids": ids, "by": "maria"})["id"]
    row = graph.cypher("MATCH (f:Memory {id: $id}) RETURN f.text AS text, f.kind AS kind",
                       {"id": fact})[0]
    assert row == {"text": preview["text"], "kind": "semantic"}
    sources = graph.cypher("MATCH (:Memory {id: $id})-[:CONSOLIDATED_FROM]->(s) "
                           "RETURN s.id AS id, s.forgotten AS f", {"id": fact})
    assert sorted(s["id"] for s in sources) == sorted(ids) and all(s["f"] for s in sources)
    after = {i["id"]: i for i in items(client)}
    assert all(after[m]["consolidated_into"] == [fact] for m in ids)
    assert graph.cypher("MATCH (o:OpLog {op: 'consolidate'}) RETURN o.agent AS by")[0] == \
        {"by": "maria"}


def test_bad_requests_are_refused_with_a_reason_and_change_nothing(client, graph):
    before = graph.cypher("MATCH (o:OpLog) RETURN count(o) AS n")[0]["n"]
    cases = [("/api/act", {"action": "explode", "id": "x", "by": "maria"}),
             ("/api/act", {"action": "pin", "id": "no-such-memory", "by": "maria"}),
             ("/api/act", {"action": "pin", "id": by_text(client, "cello")["id"], "by": ""}),
             ("/api/preview", {"ids": ["only-one"]}),
             ("/api/consolidate", {"ids": "not a list", "by": "maria"})]
    for path, payload in cases:
        status, body = client.request("POST", path, payload)
        assert status == 400 and json.loads(body)["error"], (path, payload, body)
    assert client.request("GET", "/api/page?page=zero")[0] == 400
    assert client.request("GET", "/api/page?size=100000")[0] == 400
    assert graph.cypher("MATCH (o:OpLog) RETURN count(o) AS n")[0]["n"] == before


def test_a_change_from_another_handle_shows_on_reload(client, store_dir, embedder):
    vim = by_text(client, "VS Code")
    assert not vim["pinned"]
    with MemoryGraph.open(data_dir=store_dir, embedder=embedder) as other:
        other.pin(vim["id"], by="someone-else", ns="default")
        other.set_task("ana", "choosing a code editor")
    again = by_text(client, "VS Code")
    assert again["pinned"] and again["utility"]["U"] == 1.0 and again["utility"]["E"] > 0


def test_the_page_scores_a_memory_as_recall_does(client, graph):
    graph.set_task("ana", "choosing a code editor")
    hit = next(h for h in graph.recall("ana", "Which editor does Ana use?", k=5)
               if "VS Code" in h.text)
    shown = by_text(client, "VS Code")
    assert shown["status"] == hit.status
    assert shown["utility"]["E"] > 0
    for term in ("S", "R", "E", "U"):
        assert abs(shown["utility"][term] - hit.utility[term]) < 1e-3, term


def test_on_the_deposit_clock_the_page_scores_a_memory_as_recall_does(client, graph):
    # a replayed history: recency runs on the deposits' own times, not the wall clock
    graph.set_decay(clock="deposit", half_life_days=30)
    hit = next(h for h in graph.recall("ana", "Which editor does Ana use?", k=5)
               if "VS Code" in h.text)
    shown = by_text(client, "VS Code")
    assert hit.utility["R"] < 0.5  # learned four months before the newest deposit
    for term in ("S", "R", "E", "U"):
        assert abs(shown["utility"][term] - hit.utility[term]) < 1e-3, term


def test_one_agents_page_scores_relevance_to_that_agents_task_as_its_recall_does(client, graph):
    graph.set_task("ben", "adopting a pet from the shelter")  # Ben witnessed the cat
    hit = next(h for h in graph.recall("ana", "Does Ana have a cat?", k=5) if "Miso" in h.text)
    mine = next(i for i in items(client, agent="ana") if "Miso" in i["text"])
    assert hit.utility["E"] == 0.0  # Ana has no task
    assert abs(mine["utility"]["E"] - hit.utility["E"]) < 1e-3
    # the whole namespace's page scores as maintenance does: the best owner's task
    assert by_text(client, "Miso")["utility"]["E"] > 0

"""remember: atoms, merges that keep every owner and wording, one transaction, bad input."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import graphmem.consensus as consensus
from graphmem import MemoryGraph
from graphmem.errors import InvalidInput
from graphmem.models import MAX_TEXT_CHARS


def owners(g, memory_id, ns="default"):
    rows = g.cypher("MATCH (a:Agent)-[o:OWNS]->(m:Memory {ns: $ns, id: $id}) "
                    "RETURN a.id AS agent, o.via AS via, o.from AS src", {"ns": ns, "id": memory_id})
    return {r["agent"]: (r["via"], r["src"]) for r in rows}


def counts(g):
    return g.status()["nodes"], g.status()["edges"]


def test_witnessed_event_is_stored_once_and_owned_by_all(mem):
    first = mem.remember("ana", "The bridge over the Tamsa river collapsed on Tuesday.",
                         witnesses=["ben", "cy"])
    again = mem.remember("dee", "The bridge over the Tamsa river collapsed on Tuesday.")
    assert first.atoms[0].action == "created"
    assert again.atoms[0].action == "merged"
    assert again.atoms[0].memory_id == first.atoms[0].memory_id
    assert set(owners(mem, first.atoms[0].memory_id)) == {"ana", "ben", "cy", "dee"}
    assert mem.stats()["entries"] == 1


def test_told_by_is_recorded_on_the_owns_edge(mem):
    r = mem.remember("ben", "Ana moved to Lisbon in 2021.", told_by="ana")
    assert owners(mem, r.atoms[0].memory_id)["ben"] == ("told", "ana")
    assert mem.learned_from("ben")[0]["source"] == "ana"


def test_atoms_of_a_deposit_are_affiliated(mem):
    r = mem.remember("ana", "Ana bought a red bicycle. Ben repaired its chain the next day.")
    ids = r.memory_ids
    assert len(ids) == 2
    rows = mem.cypher("MATCH (a:Memory {id: $a})-[:AFFILIATED]-(b:Memory {id: $b}) RETURN count(*) AS n",
                      {"a": ids[0], "b": ids[1]})
    assert rows[0]["n"] >= 1


def test_merge_keeps_every_wording_and_named_party(mem):
    a = mem.remember("ana", "Captain Reyes ordered the crew to lower the sails.")
    b = mem.remember("ben", "The captain, Reyes, ordered the crew to lower the sails.")
    assert b.atoms[0].action == "merged", b.atoms[0].reason
    rows = mem.cypher("MATCH (m:Memory {id: $id}) RETURN m.text AS text, m.variants AS variants",
                      {"id": a.atoms[0].memory_id})
    assert len(rows[0]["variants"]) == 2
    assert "Reyes" in rows[0]["text"]


def test_different_numbers_are_not_merged_but_noted_as_contradiction(mem):
    a = mem.remember("ana", "The ship carries 40 crates of medicine.")
    b = mem.remember("ben", "The ship carries 39 crates of medicine.")
    assert b.atoms[0].action == "created"
    assert a.atoms[0].memory_id in b.atoms[0].contradicts
    assert mem.stats()["contradictions"] == 1


def test_negation_is_not_merged(mem):
    mem.remember("ana", "Ben attended the meeting on Friday.")
    b = mem.remember("cy", "Ben did not attend the meeting on Friday.")
    assert b.atoms[0].action == "created"


@pytest.mark.parametrize("fields, fragment", [
    ({"text": ""}, "empty"),
    ({"text": "   "}, "empty"),
    ({"text": "x" * (MAX_TEXT_CHARS + 1)}, "limit"),
    ({"text": "A fact.", "witnesses": ["ana"]}, "depositor"),
    ({"text": "A fact.", "witnesses": ["ben", "ben"]}, "twice"),
    ({"text": "A fact.", "at": "the day after never"}, "at"),
    ({"text": "A fact.", "told_by": "ana"}, "depositor"),
])
def test_bad_deposits_are_refused_and_write_nothing(mem, fields, fragment):
    before = counts(mem)
    with pytest.raises(InvalidInput) as info:
        mem.remember("ana", **fields)
    assert fragment in str(info.value)
    assert counts(mem) == before


def test_strict_namespace_refuses_unknown_agents(mem):
    mem.register_agent("ana", kind="human", name="Ana", ns="strict")
    mem.set_strict("strict")
    with pytest.raises(InvalidInput, match="ghost"):
        mem.remember("ana", "The lights went out.", witnesses=["ghost"], ns="strict")
    assert mem.stats(ns="strict")["entries"] == 0
    mem.register_agent("ghost", ns="strict")
    assert mem.remember("ana", "The lights went out.", witnesses=["ghost"], ns="strict").atoms


def test_first_person_is_resolved_to_the_registered_name(mem):
    mem.register_agent("h1", name="Hamlet")
    a = mem.remember("h1", 'I said: "The rest is silence."')
    b = mem.remember("horatio", 'Hamlet said: "The rest is silence."')
    assert a.atoms[0].text.startswith("Hamlet said")
    assert b.atoms[0].memory_id == a.atoms[0].memory_id


def test_unmerge_restores_the_records_it_joined(mem):
    a = mem.remember("ana", "The bridge over the Tamsa river collapsed on Tuesday.",
                     witnesses=["ben"])
    b = mem.remember("dee", "The bridge over the Tamsa river collapsed on Tuesday.",
                     witnesses=["eve"])
    mid = a.atoms[0].memory_id
    assert b.atoms[0].memory_id == mid
    restored = mem.unmerge(mid)
    assert set(owners(mem, mid)) == {"ana", "ben"}
    assert set(owners(mem, restored)) == {"dee", "eve"}
    assert mem.stats()["entries"] == 2
    with pytest.raises(InvalidInput, match="no merge"):
        mem.unmerge(mid)


def test_remember_many_matches_one_by_one(mem):
    deposits = [{"agent": "ana", "text": "The kettle is broken. Ben will fix it on Monday."},
                {"agent": "ben", "text": "The kettle is broken.", "witnesses": ["cy"]},
                {"agent": "cy", "text": "Lunch is at noon."}]
    results = mem.remember_many(deposits, ns="many")
    assert [len(r.atoms) for r in results] == [2, 1, 1]
    assert results[1].atoms[0].action == "merged"
    assert results[1].atoms[0].memory_id == results[0].atoms[0].memory_id
    assert mem.stats(ns="many")["entries"] == 3


DEEDS = ["Ben repaired the blue bicycle.", "Ben sold three letters at the market.",
         "Ben painted the old mill.", "Ben lost the spare key.",
         "Ben photographed a silver watch.", "Ben borrowed the ledger from the clinic.",
         "Ben returned a broken radio.", "Ben hid the night train ticket.",
         "Ben flew a kite over the river bank.", "Ben described the map to the school."]


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.tuples(st.integers(1, 28), st.integers(1, 2)), min_size=1,
                     max_size=5))
def test_an_entitys_timeline_is_one_chain_in_time_order(embedded_graph, plan):
    """Deposits arrive in any order, some with two statements of one time: every memory
    naming Ben joins his StoryArc, and NEXT links them in (time, recorded, id) order (the
    deposits of one time in the order they were told), no more."""
    g, ns = embedded_graph, f"arc-{uuid.uuid4().hex[:8]}"
    deeds = iter(DEEDS)
    for day, count in plan:
        g.remember("ana", " ".join(next(deeds) for _ in range(count)),
                   at=f"2024-03-{day:02d}T10:00", ns=ns)
    _, order, links = _chain(g, ns)
    assert len(order) == sum(count for _, count in plan)
    assert links == sorted(zip(order, order[1:]))


def _chain(g, ns: str) -> tuple[str, list[str], list[tuple[str, str]]]:
    """Ben's timeline: its id, its memories in (time, recorded, id) order, its NEXT
    edges."""
    entity = g.cypher("MATCH (e:Entity {ns: $ns, name: 'Ben'}) RETURN e.id AS id",
                      {"ns": ns})[0]["id"]
    arc = f"arc:{entity}"
    included = g.cypher("MATCH (:StoryArc {ns: $ns, id: $arc})-[r:INCLUDES]->(m:Memory) "
                        "RETURN r.t AS t, m.recorded_at AS recorded_at, m.id AS id",
                        {"ns": ns, "arc": arc})
    order = [r["id"] for r in sorted(included, key=lambda r: (r["t"], r["recorded_at"], r["id"]))]
    links = g.cypher("MATCH (x:Memory {ns: $ns})-[:NEXT {arc: $arc}]->(y:Memory) "
                     "RETURN x.id AS a, y.id AS b", {"ns": ns, "arc": arc})
    return arc, order, sorted((r["a"], r["b"]) for r in links)


def test_the_memories_of_one_time_are_linked_in_the_order_they_were_told(embedded_graph):
    """The turns of one session share its date: NEXT links them in the order they were
    told, not by their random ids, and the view's timeline agrees."""
    g, ns = embedded_graph, f"told-{uuid.uuid4().hex[:8]}"
    for deed in DEEDS[:6]:
        g.remember("ana", deed, at="2024-03-05T10:00", ns=ns)
    _, order, links = _chain(g, ns)
    texts = {r["id"]: r["text"] for r in g.cypher(
        "MATCH (m:Memory {ns: $ns}) RETURN m.id AS id, m.text AS text", {"ns": ns})}
    assert [texts[m] for m in order] == DEEDS[:6]
    assert links == sorted(zip(order, order[1:]))
    view = g._views.synced(ns)
    entity = _chain(g, ns)[0].removeprefix("arc:")
    assert [mid for _, _, mid in view.arc(entity)] == order


def test_the_statements_of_one_deposit_are_linked_in_the_order_they_were_written(
        embedded_graph):
    """One deposit's statements share its time and its moment of recording: NEXT links
    them in the order the deposit wrote them (six statements: by random ids, one order
    in 720), and the view's timeline agrees."""
    g, ns = embedded_graph, f"deposit-{uuid.uuid4().hex[:8]}"
    result = g.remember("ana", " ".join(DEEDS[:6]), at="2024-03-05T10:00", ns=ns)
    assert [a.action for a in result.atoms] == ["created"] * 6
    arc, order, links = _chain(g, ns)
    assert order == [a.memory_id for a in result.atoms]
    assert links == sorted(zip(order, order[1:]))
    view = g._views.synced(ns)
    assert [mid for _, _, mid in view.arc(arc.removeprefix("arc:"))] == order


def test_a_deposits_ids_ascend_in_the_order_they_are_handed_out():
    first, second = consensus.deposit_ids("m"), consensus.deposit_ids("m")
    ids = [next(first) for _ in range(300)]
    assert ids == sorted(ids) and len(set(ids)) == 300
    assert all(len(i) == len(ids[0]) for i in ids)
    assert next(second)[:-6] != ids[0][:-6]  # each deposit its own stem


def test_relink_sets_a_damaged_timeline_to_its_order_and_nothing_else(mem):
    """A store written before the fix holds stale skip edges: `relink_timelines` removes
    them, restores a missing link, moves the version once, and then has nothing to do."""
    mem.remember("ana", DEEDS[0], at="2024-03-01T10:00")
    mem.remember("ana", f"{DEEDS[1]} {DEEDS[2]}", at="2024-03-02T10:00")
    mem.remember("ana", DEEDS[3], at="2024-03-03T10:00")
    arc, order, links = _chain(mem, "default")
    assert links == sorted(zip(order, order[1:])) and len(order) == 4
    mem.cypher("MATCH (x:Memory {id: $a}), (y:Memory {id: $b}) "
               "CREATE (x)-[:NEXT {arc: $arc}]->(y)",
               {"a": order[0], "b": order[2], "arc": arc}, write=True)  # a stale skip
    mem.cypher("MATCH (:Memory {id: $a})-[r:NEXT {arc: $arc}]->(:Memory {id: $b}) DELETE r",
               {"a": order[2], "b": order[3], "arc": arc}, write=True)  # a lost link
    version = mem.query("memory/namespace_version", {"ns": "default"})[0]["version"]
    damaged = _chain(mem, "default")[2]
    assert mem.relink_timelines(check=True) == {"default": 2}  # counted, not written
    assert _chain(mem, "default")[2] == damaged
    assert mem.query("memory/namespace_version", {"ns": "default"})[0]["version"] == version
    assert mem.relink_timelines() == {"default": 2}
    assert _chain(mem, "default")[2] == sorted(zip(order, order[1:]))
    assert mem.query("memory/namespace_version", {"ns": "default"})[0]["version"] == version + 1
    assert mem.relink_timelines() == {"default": 0}
    assert mem.relink_timelines(check=True) == {"default": 0}
    assert mem.check() == []


def test_a_remember_reads_the_namespace_and_its_agent_in_one_round_trip(mem, monkeypatch):
    """A write's first read is the namespace's state with the agent's trust state; then
    the write, and the read of what it wrote (the view catching up) made together with
    the journal's note of the new version."""
    mem.remember("ana", "The ferry leaves at noon.")
    calls: list[tuple[str, str]] = []
    for kind in ("read", "write"):
        real = getattr(mem._store, kind)
        monkeypatch.setattr(mem._store, kind, lambda query, *a, _real=real, _kind=kind, **k:
                            calls.append((_kind, query)) or _real(query, *a, **k))
    real_noting, real_note = mem._store.read_noting, mem._store.note_version
    monkeypatch.setattr(mem._store, "read_noting", lambda ns, version, query, *a, **k:
                        calls.append(("read_noting", query)) or
                        real_noting(ns, version, query, *a, **k))
    monkeypatch.setattr(mem._store, "note_version", lambda ns, version:
                        calls.append(("note_version", ns)) or real_note(ns, version))
    mem.remember("ana", "The harbour crane needs a new cable.")
    assert calls == [("read", mem._queries["trust/agent_state"]),
                     ("write", mem._queries["memory/apply_deposit"]),
                     ("read_noting", mem._queries["memory/changed_since"])]
    version = mem.query("memory/namespace_version", {"ns": "default"})[0]["version"]
    assert mem._store.noted_versions()["default"] == version


def test_a_plan_the_view_moved_under_is_made_again(tmp_path, embedder, monkeypatch):
    """The write is guarded by the version the plan was made at, read before planning. If
    another thread catches the view up with another writer's memory between the plan and
    the write, the write fails and the deposit is planned again: it merges with the memory
    that arrived instead of being written beside it."""
    data = tmp_path / "d"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as a, \
            MemoryGraph.open(data_dir=data, embedder=embedder) as b:
        a.remember("ana", "The ferry leaves at noon.", ns="port")
        plans: list[list[str]] = []

        def then_another_writer(deposit, *args, **kwargs):
            plan = consensus.plan_deposit(deposit, *args, **kwargs)
            if deposit.agent != "ana":  # ben's own write plans through here too
                return plan
            plans.append([atom.action for atom in plan.outcomes])
            if len(plans) == 1:
                b.remember("ben", "The harbour crane needs a new cable.", ns="port")
                a._views.synced("port")  # as a recall on another thread would
            return plan

        monkeypatch.setattr("graphmem.writer.plan_deposit", then_another_writer)
        result = a.remember("ana", "The harbour crane needs a new cable.", ns="port")
        crane = b.cypher("MATCH (m:Memory {ns: 'port'}) WHERE m.text CONTAINS 'crane' "
                         "RETURN m.asserted_by AS by")
    assert plans == [["created"], ["merged"]]
    assert [(atom.action, result.attempts) for atom in result.atoms] == [("merged", 2)]
    assert len(crane) == 1 and sorted(crane[0]["by"]) == ["ana", "ben"]


def test_an_unmerge_the_view_moved_under_is_made_again(tmp_path, embedder):
    """As for a deposit: an unmerge is guarded by the version it was planned at. A merge
    by another writer that the view reads in between (here while the unmerge composes the
    memory's text) makes it plan again, and what that merge gave the memory stays."""
    data = tmp_path / "d"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as a, \
            MemoryGraph.open(data_dir=data, embedder=embedder) as b:
        memory = a.remember("ana", "The ferry leaves at noon.", ns="port").memory_ids[0]
        a.remember("ben", "The ferry leaves at noon.", ns="port")
        compose = a._writer._canonical
        calls: list[int] = []

        def then_another_merge(variants):
            calls.append(len(calls))
            if len(calls) == 1:
                b.remember("cy", "The ferry leaves at noon.", ns="port")
                a._views.synced("port")  # as a recall on another thread would
            return compose(variants)

        a._writer._canonical = then_another_merge
        restored = a.unmerge(memory, ns="port")  # ben's merge
        owners = {r["id"]: sorted(r["o"]) for r in b.cypher(
            "MATCH (x:Agent)-[:OWNS]->(m:Memory {ns: 'port'}) "
            "RETURN m.id AS id, collect(x.id) AS o")}
    assert len(calls) >= 2  # planned again
    assert owners == {memory: ["ana", "cy"], restored: ["ben"]}

"""World memory on a real store: designs, seeded vs simulation entries, the six
memory-management actions, and a checkpoint dump that restores exactly."""

from __future__ import annotations

import pytest

from graphmem import MemoryGraph
from graphmem.errors import InvalidInput
from graphmem.worlds.actions import Action
from graphmem.worlds.memory import WorldMemory, graph_design
from graphmem.worlds.model import Entity, WorldMap, WorldState
from graphmem.worlds.snapshot import dump_namespace, dump_rows, restore_namespace, restore_rows


def two_people() -> WorldState:
    ents = {"anna": Entity("anna", "Anna", "character", place="quay"),
            "ben": Entity("ben", "Ben", "character", place="quay"),
            "quay": Entity("quay", "The quay", "environment", place="quay")}
    return WorldState("t", 0, ents, WorldMap(["quay"]))


@pytest.fixture
def world_memory(tmp_path, embedder):
    def make(design: str) -> WorldMemory:
        g = MemoryGraph.open(data_dir=tmp_path / "data", design=graph_design(design),
                             embedder=embedder)
        opened.append(g)
        mem = WorldMemory(g, f"t-{design}", design=design)
        mem.register(two_people())
        return mem

    opened: list = []
    yield make
    for g in opened:
        g.close()


def tell(mem: WorldMemory, world: WorldState, actor: str, text: str) -> str:
    return mem.act(Action(actor, "remember", {"text": text}), world)


def test_consensus_merges_accounts_the_baselines_keep_apart(world_memory):
    world = two_people()
    written = {}
    for design in ("consensus", "nomerge", "private", "two-tier", "shared-acl"):
        mem = world_memory(design)
        mem.seed([{"agent": "anna", "text": "Anna sold the boat to Ben.", "witnesses": ["ben"]}])
        tell(mem, world, "anna", 'I said: "The storm will come tonight."')
        tell(mem, world, "ben", 'Anna said: "The storm will come tonight."')
        mem.end_round(0, world)
        written[design] = len(mem.sim_ids)
        assert len(mem.seeded_ids) == (2 if design in ("private", "two-tier") else 1)
    assert written["consensus"] == 1
    assert written["nomerge"] == written["private"] == written["shared-acl"] == 2
    assert written["two-tier"] == 4  # two interactions, one insight per depositor


def test_memory_management_actions(world_memory):
    world = two_people()
    mem = world_memory("consensus")
    tell(mem, world, "anna", "The lighthouse keeper is ill. The harbour master wants a doctor.")
    tell(mem, world, "anna", "Bread costs two coins at the market.")
    ids = sorted(mem.sim_ids)
    got = mem.act(Action("anna", "get_affiliated", {"query": "lighthouse keeper ill"}), world)
    assert "harbour master" in got or "lighthouse" in got
    bread = next(h.memory_id for h in mem.recall("anna", "bread market price"))
    keeper = next(h.memory_id for h in mem.recall("anna", "lighthouse keeper ill"))
    assert "linked" in mem.act(Action("anna", "add_affiliated",
                                      {"memory": keeper, "other": bread}), world)
    assert "Bread" in mem.act(Action("anna", "get_affiliated", {"memory": keeper}), world)
    assert "unlinked" in mem.act(Action("anna", "remove_affiliated",
                                        {"memory": keeper, "other": bread}), world)
    assert "Bread" not in mem.act(Action("anna", "get_affiliated", {"memory": keeper}), world)
    mem.act(Action("anna", "set_affiliated", {"memory": keeper, "others": [bread]}), world)
    assert mem.act(Action("anna", "get_affiliated", {"memory": keeper}), world).startswith(bread)
    assert "revised" in mem.act(Action("anna", "revise", {
        "memory": bread, "text": "Bread costs three coins at the market."}), world)
    assert "three coins" in mem.recall("anna", "bread price")[0].text
    assert "forgot" in mem.act(Action("anna", "forget", {"memory": bread}), world)
    assert bread not in [h.memory_id for h in mem.recall("anna", "bread price")]
    refused = mem.act(Action("ben", "forget", {"memory": keeper}), world)
    assert refused.startswith("refused") and len(ids) == 3
    assert mem.calls["forget"] == 2


def test_checkpoint_dump_restores_the_namespace_exactly(world_memory, tmp_path):
    world = two_people()
    mem = world_memory("consensus")
    mem.seed([{"agent": "anna", "text": "Anna sold the boat to Ben on Monday.",
               "witnesses": ["ben"]}])
    tell(mem, world, "ben", "Anna sold the boat to Ben on Monday. Ben paid in fish.")
    mem.end_round(0, world)
    before = [h.text for h in mem.recall("ben", "who sold the boat")]
    dump_namespace(mem.graph, mem.ns, tmp_path / "a.jsonl")
    mem.graph.drop_namespace(mem.ns)
    assert mem.graph.stats(ns=mem.ns)["entries"] == 0
    restore_namespace(mem.graph, mem.ns, tmp_path / "a.jsonl")
    dump_namespace(mem.graph, mem.ns, tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()
    assert [h.text for h in mem.recall("ben", "who sold the boat")] == before
    with pytest.raises(InvalidInput):
        restore_namespace(mem.graph, mem.ns, tmp_path / "missing.jsonl")


def test_a_restore_is_seen_by_a_handle_that_read_the_namespace_after_the_dump(
        tmp_path, embedder):
    """Another process's view of the namespace is ahead of the restored version: it must
    be rebuilt, not kept (the restore gives the namespace a new epoch)."""
    data, dump = tmp_path / "data", tmp_path / "w.jsonl"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as a, \
            MemoryGraph.open(data_dir=data, embedder=embedder) as b:
        a.remember("ana", "Ana found the spare key at the harbour.", ns="w")
        dump_namespace(a, "w", dump)
        a.remember("ana", "Ana bought a red kite at the market.", ns="w")
        assert len(b.recall("ana", "What did Ana buy?", ns="w")) == 2
        restore_namespace(a, "w", dump)
        assert [h.text for h in b.recall("ana", "What did Ana buy?", ns="w")] == \
            ["Ana found the spare key at the harbour."]
        # and a process that opens the store later does not start from b's saved view
    with MemoryGraph.open(data_dir=data, embedder=embedder) as c:
        assert len(c.recall("ana", "What did Ana buy?", ns="w")) == 1


def test_a_dump_whose_timeline_an_older_release_linked_is_restored_in_order(embedded_graph):
    """A checkpoint of an older release links the memories of one time in another order:
    the restore links them as this release's view orders them, and a dump of this
    release is restored as it was."""
    g = embedded_graph
    g.remember("ana", "Ben repaired the blue bicycle. Ben sold three letters at the market. "
               "Ben painted the old mill.", at="2024-03-05T10:00", ns="w")
    arc = g.cypher("MATCH (a:StoryArc {ns: 'w'})-[:INCLUDES]->(:Memory) "
                   "RETURN a.id AS id, count(*) AS n ORDER BY n DESC LIMIT 1")[0]["id"]

    def links() -> list[tuple[str, str]]:
        return sorted((r["a"], r["b"]) for r in g.cypher(
            "MATCH (x:Memory {ns: 'w'})-[:NEXT {arc: $arc}]->(y:Memory) "
            "RETURN x.id AS a, y.id AS b", {"arc": arc}))

    ordered = links()
    assert len(ordered) == 2
    rows = list(dump_rows(g, "w"))
    restore_rows(g, "w", rows)
    assert links() == ordered
    older = [r for r in rows if r.get("edge") != "NEXT" or r["props"].get("arc") != arc]
    older += [{"edge": "NEXT", "from_id": b, "to_id": a, "props": {"arc": arc}}
              for a, b in ordered]  # the same members, linked the other way round
    restore_rows(g, "w", older)
    assert links() == ordered


def test_unknown_design_is_refused():
    with pytest.raises(InvalidInput, match="two-tier"):
        graph_design("gossip")

"""Hamlet runs on a real store, kept short: the seeded history is cut to its first
speeches and the run to a few rounds of Act IV."""

from __future__ import annotations

import json

import pytest

from graphmem import MemoryGraph
from graphmem.errors import InvalidInput
from graphmem.worlds.hamlet import sediment_hamlet
from graphmem.worlds.kernel import Kernel
from graphmem.worlds.memory import WorldMemory, graph_design
from graphmem.worlds.model import WorldState
from graphmem.worlds.policy import ScriptPolicy
from graphmem.worlds.run import RunSpec, run_world

SEED_SPEECHES = 30


@pytest.fixture(scope="module")
def sediment(shared_data):
    sed = sediment_hamlet(shared_data / "hamlet" / "hamlet.tei.xml")
    sed.seed = sed.seed[:SEED_SPEECHES]
    return sed


@pytest.fixture
def graph(tmp_path, embedder):
    g = MemoryGraph.open(data_dir=tmp_path / "data", embedder=embedder)
    yield g
    g.close()


def test_sedimentation_reads_cast_places_carriers_and_script(shared_data):
    sed = sediment_hamlet(shared_data / "hamlet" / "hamlet.tei.xml")
    kinds = {k: [e for e in sed.world.entities.values() if e.kind == k]
             for k in ("character", "environment", "carrier")}
    assert len(kinds["environment"]) == 20 == len(sed.world.map.places)
    assert any("Hamlet" in c.text and c.holder == "horatio" for c in kinds["carrier"])
    absent = {c.id for c in kinds["character"] if not c.present}
    assert "polonius" in absent and "hamlet" not in absent  # the dead keep their memories
    assert {b.speech.split(".")[0] for b in sed.script} == {"4", "5"}
    assert max(b.round for b in sed.script) == 39 and min(b.round for b in sed.script) == 0
    assert {d["agent"] for d in sed.seed if d["agent"].startswith("carrier.")} == {
        c.id for c in kinds["carrier"]}  # carriers own the text they hold
    witnessed = [d for d in sed.seed if d.get("witnesses")]
    assert len(witnessed) > 0.9 * sum(1 for d in sed.seed if d["agent"] in {
        c.id for c in kinds["character"]})
    with pytest.raises(InvalidInput):
        sediment_hamlet(shared_data / "hamlet" / "hamlet.tei.xml", seed_acts=(1, 2, 3, 4, 5))


def strip(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_a_run_is_reproducible_and_resumes_to_the_identical_result(graph, sediment, tmp_path):
    policy = ScriptPolicy(sediment.script)
    whole = tmp_path / "whole"
    run_world(graph, sediment, policy, RunSpec("hamlet", "consensus", 3, whole, ns="a"))
    cut = tmp_path / "cut"  # a fresh run: checkpoint after round 1, stop after round 2
    run_world(graph, sediment, policy, RunSpec("hamlet", "consensus", 3, cut, ns="c",
                                               checkpoint_every=2))
    graph.drop_namespace("c")  # the store is lost; the checkpoint is not
    run_world(graph, sediment, policy, RunSpec("hamlet", "consensus", 3, cut, ns="c",
                                               checkpoint_every=2, resume=True))
    assert lines(cut / "events.jsonl") == lines(whole / "events.jsonl")
    assert strip(lines(cut / "structure.jsonl")) == strip(lines(whole / "structure.jsonl"))
    assert json.loads((cut / "world.json").read_text()) == json.loads(
        (whole / "world.json").read_text())
    events = lines(whole / "events.jsonl")
    assert {e["kind"] for e in events} >= {"say", "remember", "recall", "move", "push_goal"}
    report = json.loads((whole / "report.json").read_text())
    assert report["final"]["entries_written"] > 0 and report["messages"] > 0
    assert report["final"]["recall_amplification"] <= 1.0
    with pytest.raises(InvalidInput):
        run_world(graph, sediment, policy, RunSpec("hamlet", "consensus", 4, tmp_path / "x",
                                                   resume=True))


def test_stepping_order_does_not_change_a_run_with_memory(graph, sediment):
    def run(ns, reverse):
        world = WorldState.from_dict(sediment.world.to_dict())
        memory = WorldMemory(graph, ns)
        graph.drop_namespace(ns)
        memory.register(world)
        memory.seed(sediment.seed[:10])
        kernel = Kernel(world, ScriptPolicy(sediment.script), memory)
        for _ in range(2):
            kernel.step(sorted(kernel.world.awake(), reverse=reverse))
        texts = sorted((r["text"], tuple(sorted(r["owners"]))) for r in graph.cypher(
            "MATCH (m:Memory {ns: $ns}) OPTIONAL MATCH (a:Agent)-[:OWNS]->(m) "
            "RETURN m.text AS text, collect(a.id) AS owners", {"ns": ns}))
        return kernel.events, kernel.world.to_dict(), texts

    assert run("forward", False) == run("backward", True)


@pytest.mark.slow
def test_consensus_writes_least_and_alone_shares(tmp_path, embedder, sediment):
    written = {}
    for design in ("consensus", "nomerge", "private", "two-tier", "shared-acl"):
        with MemoryGraph.open(data_dir=tmp_path / "data", design=graph_design(design),
                              embedder=embedder) as g:
            report = run_world(g, sediment, ScriptPolicy(sediment.script, recall=False),
                               RunSpec("hamlet", design, 3, tmp_path / design))
        written[design] = report["final"]
    assert all(written["consensus"]["entries_written"] < w["entries_written"]
               for d, w in written.items() if d != "consensus")
    assert written["consensus"]["multi_owner_share"] > 0
    assert all(w["multi_owner_share"] == 0 for d, w in written.items() if d != "consensus")

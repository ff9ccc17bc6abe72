"""Federated merge (RFC-0011 §10) between two real stores with overlapping agent ids."""

from __future__ import annotations

import pytest

from graphmem import MemoryGraph
from graphmem.errors import InvalidInput
from graphmem.trust.clock import ManualClock
from tests.trust.conftest import START


@pytest.fixture
def other(tmp_path, embedder):
    clock = ManualClock(START - 86_400_000)
    g = MemoryGraph.open(data_dir=tmp_path / "other", embedder=embedder, clock=clock)
    ns = "field"
    g.register_agent("root", kind="human", ns=ns)
    for agent in ("scout", "lead"):
        g.register_agent(agent, kind="ai", ns=ns)
    g.set_trust("scout", 1.0, ns=ns, by="root")
    g.remember("scout", "The north pass is blocked by snow.", ns=ns, witnesses=["lead"])
    g.remember("lead", "The north pass is blocked by snow.", ns=ns)
    g.remember("lead", "The river ford is safe at dawn.", ns=ns)
    yield g
    g.close()


def test_identical_agent_ids_from_two_stores_stay_two_identities(tgraph, other, clock):
    ns = "field"
    tgraph.register_agent("root", kind="human", ns=ns)
    tgraph.register_agent("scout", kind="ai", ns=ns)
    mine = tgraph.remember("scout", "The south road is clear.", ns=ns).memory_ids[0]
    report = tgraph.federate(other, node_id="north-camp", ns=ns)
    assert report == {"agents": 3, "memories": 2, "events": len(other.events(ns=ns))}
    agents = {p["id"]: p for p in tgraph.trust_profiles(ns=ns)}
    assert {"scout", "federated:north-camp:scout", "federated:north-camp:lead",
            "federated:north-camp:root"} <= set(agents)
    assert agents["federated:north-camp:scout"]["trusts"] == []  # no profile adopted
    assert agents["federated:north-camp:scout"]["federated_from"] == "north-camp"
    # local policy has not trusted them yet: their memories carry no weight
    federated = tgraph.cypher("MATCH (m:Memory {ns: $ns}) WHERE m.id STARTS WITH 'federated:' "
                              "RETURN m.id AS id, m.asserted_by AS by", {"ns": ns})
    assert len(federated) == 2
    assert all(a.startswith("federated:north-camp:") for r in federated for a in r["by"])
    assert all(tgraph.confidence(r["id"], ns=ns) == 0.0 for r in federated)
    assert tgraph.confidence(mine, ns=ns) == pytest.approx(0.5)
    # the other store's events, appended with their own times and the merge's
    appended = tgraph.cypher("MATCH (e:OpLog {ns: $ns}) WHERE e.federated_from IS NOT NULL "
                             "RETURN e.at AS at, e.merged_at AS merged, e.agent AS agent",
                             {"ns": ns})
    assert len(appended) == len(other.events(ns=ns))
    assert all(r["at"] < r["merged"] == clock.now for r in appended)
    # local trust decides: trusting the federated scout re-weighs its memories
    tgraph.set_trust("federated:north-camp:scout", 0.6, ns=ns, by="root")
    pass_id = next(r["id"] for r in federated if "north pass" in
                   tgraph.cypher("MATCH (m:Memory {ns: $ns, id: $id}) RETURN m.text AS t",
                                 {"ns": ns, "id": r["id"]})[0]["t"])
    assert tgraph.confidence(pass_id, ns=ns) == pytest.approx(0.5 * 0.6)
    assert tgraph.replayed_confidence(ns=ns)[pass_id] == pytest.approx(0.3)
    # the owners came along under their new names, and recall finds it for them
    hits = tgraph.recall("federated:north-camp:lead", "Is the north pass open?", ns=ns)
    assert hits and hits[0].memory_id == pass_id
    # union semantics: federating again adds nothing
    before = tgraph.cypher("MATCH (n) RETURN count(n) AS c")[0]["c"]
    tgraph.federate(other, node_id="north-camp", ns=ns)
    assert tgraph.cypher("MATCH (n) RETURN count(n) AS c")[0]["c"] == before + 1  # its event
    assert len(tgraph.events(ns=ns, kinds=["federation"])) == 2


def test_a_bad_node_id_or_an_empty_source_is_refused(tgraph, other):
    with pytest.raises(InvalidInput, match="node_id"):
        tgraph.federate(other, node_id="north camp", ns="field")
    with pytest.raises(InvalidInput, match="no namespace"):
        tgraph.federate(other, node_id="x", ns="field", source_ns="nothing-here")


def test_a_federated_copy_keeps_what_its_memories_claim(tgraph, other):
    """The claims kept with each memory come along: the receiving store's detector need
    not parse the copies again (graphmem.supersession.stored)."""
    tgraph.register_agent("root", kind="human", ns="field")
    tgraph.federate(other, node_id="north-camp", ns="field")
    query = "MATCH (m:Memory {ns: 'field'}) RETURN m.text AS text, m.claims AS claims"
    source = {r["text"]: r["claims"] for r in other.cypher(query)}
    copied = {r["text"]: r["claims"] for r in tgraph.cypher(query)}
    assert source and all(source.values())
    assert copied == source

"""A remember leaves as little garbage in FalkorDB's indexes as its changes need: a node
created whole is indexed once, each existing memory it changes is re-indexed once, and an
entity it names again unchanged not at all. Each re-index is a document the server's
index garbage collector later removes by forking the whole server (docs/scaling-out.md)."""

from __future__ import annotations


def garbage(g) -> dict[str, int]:
    """Per indexed label: documents re-indexed and not yet collected."""
    return {r["label"]: r["info"]["maxDocId"] - r["info"]["numDocuments"]
            for r in g.cypher("CALL db.indexes()")}


def grown(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {label: after[label] - before.get(label, 0) for label in after
            if after[label] != before.get(label, 0)}


def test_a_remember_that_creates_re_indexes_no_memory_deposit_or_entity(embedded_graph):
    g = embedded_graph
    g.remember("ann", "Ana planted three olive trees in Lisbon.")
    before = garbage(g)
    r = g.remember("ben", "Ana sold her blue bicycle in Lisbon.")
    assert r.atoms[0].action == "created"
    # the namespace's version and the depositor's trust counters change on every write
    assert set(grown(before, garbage(g))) <= {"Namespace", "Agent"}
    stored = g.cypher("MATCH (m:Memory {id: $id}) RETURN m.text AS text, m.confidence AS c, "
                      "m.seq AS seq, m.asserted_by AS by", {"id": r.atoms[0].memory_id})[0]
    assert stored["text"] and stored["by"] == ["ben"] and stored["seq"] > 0
    assert stored["c"] is not None  # the trust ledger's confidence, folded into the CREATE


def test_a_merge_re_indexes_only_the_memory_merged_into(embedded_graph):
    g = embedded_graph
    first = g.remember("ann", "The ferry to Porto left two hours late.")
    g.remember("ann", "Cy repaired the old radio.")
    before = garbage(g)
    again = g.remember("ben", "The ferry to Porto left two hours late.")
    assert again.atoms[0].action == "merged"
    assert again.atoms[0].memory_id == first.atoms[0].memory_id
    assert grown(before, garbage(g)).get("Memory") == 1
    merged = g.cypher("MATCH (m:Memory {id: $id}) RETURN m.asserted_by AS by",
                      {"id": first.atoms[0].memory_id})[0]
    assert sorted(merged["by"]) == ["ann", "ben"]

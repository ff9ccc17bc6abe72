"""maintain records a memory's score only where the memory is still the version it read:
another writer's change between the pass's read and its write is kept, not overwritten
by a score of the old state."""

from __future__ import annotations

from graphmem import MemoryGraph
from graphmem.lifecycle.maintenance import maintain

NS = "upkeep"


def test_a_memory_pinned_while_maintain_scores_keeps_no_stale_score(tmp_path, embedder):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g, \
            MemoryGraph.open(data_dir=data, embedder=embedder) as other:
        vault = g.remember("ana", "The vault code changed in March.", ns=NS).memory_ids[0]
        gull = g.remember("ana", "A gull stole a sandwich on the pier.", ns=NS).memory_ids[0]
        g.set_task("ana", "Keep the vault secure.", ns=NS)
        g.set_decay(threshold=0.45, ns=NS)
        interleaved = []

        def embed_then_pin(texts):
            # maintain embeds the tasks after its view has read the memories and before
            # it writes their scores: the other handle pins one in between
            if not interleaved:
                other.pin(vault, by="ines", ns=NS)
                interleaved.append(vault)
            return embedder.embed(texts)

        report = maintain(g._store, g._queries, g._views, g._curator, embed_then_pin, NS,
                          now=g.cypher("RETURN timestamp() AS t")[0]["t"] + 10 ** 12)
        assert interleaved == [vault]
        assert report.changed == [vault] and report.pruned == [gull]
        row = g.cypher("MATCH (m:Memory {id: $id}) RETURN m.pinned AS pinned, m.forgotten AS "
                       "forgotten, m.human_utility AS u, m.utility AS s", {"id": vault})[0]
        # the pin holds, and no score of the unpinned memory (U = 0.5) was recorded on it
        assert row["pinned"] is True and not row["forgotten"] and row["u"] is None
        # the next pass scores it as it is now
        again = maintain(g._store, g._queries, g._views, g._curator, embedder.embed, NS,
                         now=g.cypher("RETURN timestamp() AS t")[0]["t"] + 10 ** 12)
        assert again.changed == []
        assert g.cypher("MATCH (m:Memory {id: $id}) RETURN m.human_utility AS u",
                        {"id": vault})[0]["u"] == 1.0

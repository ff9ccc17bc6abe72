"""maintain writes a memory's score, promotion or prune only where the memory is still the
version it read: another writer's change between the pass's read and its write is kept,
not overwritten by an act on the old state."""

from __future__ import annotations

from graphmem import MemoryGraph
from graphmem.lifecycle.curation import Curator
from graphmem.lifecycle.maintenance import maintain
from graphmem.lifecycle.summarise import central_statement

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


def test_a_memory_learned_again_after_its_score_was_recorded_is_not_pruned(tmp_path, embedder):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g, \
            MemoryGraph.open(data_dir=data, embedder=embedder) as other:
        gull = g.remember("ana", "A gull stole a sandwich on the pier.", ns=NS).memory_ids[0]
        pair = g.remember("ana", "The ferry engine failed on Monday. The ferry engine was "
                                 "broken again on Tuesday.", ns=NS).memory_ids
        g.set_decay(threshold=0.45, cluster_similarity=0.5, ns=NS)
        learned_again = []

        def summarise_then_learn(texts, vectors):
            # the pass consolidates (after recording its scores, before pruning): meanwhile
            # Ben deposits what Ana remembered, and the memory merges with his deposit
            if not learned_again:
                learned_again.append(other.remember(
                    "ben", "A gull stole a sandwich on the pier.", ns=NS).memory_ids[0])
            return central_statement(texts, vectors)

        curator = Curator(g._store, g._queries, g._views, embedder.embed,
                          summarise=summarise_then_learn)
        report = maintain(g._store, g._queries, g._views, curator, embedder.embed, NS,
                          now=g.cypher("RETURN timestamp() AS t")[0]["t"] + 10 ** 12)
        assert learned_again == [gull]  # merged into Ana's memory: Ben owns it too now
        assert [sorted(c["sources"]) for c in report.consolidated] == [sorted(pair)]
        assert report.pruned == []
        row = g.cypher("MATCH (m:Memory {id: $id}) RETURN m.forgotten AS forgotten",
                       {"id": gull})[0]
        assert not row["forgotten"]
        assert gull in [h.memory_id for h in g.recall("ben", "What did the gull steal?", ns=NS)]


def test_pruning_only_memories_pinned_meanwhile_forgets_nothing_at_once(embedded_graph):
    # every memory of the prune pinned since the pass read them: the write is done (it
    # used to find no row, read that as a moved version and retry until WriteConflict)
    g = embedded_graph
    vault = g.remember("ana", "The vault code changed in March.").memory_ids[0]
    read_at = g._views.synced("default").version
    g.pin(vault, by="ines")
    assert g._curator.forget_many([vault], by="maintenance", ns="default", op="op-1",
                                  read_at=read_at) == []
    assert g.cypher("MATCH (m:Memory {id: $id}) RETURN m.forgotten AS f",
                    {"id": vault})[0]["f"] in (None, False)

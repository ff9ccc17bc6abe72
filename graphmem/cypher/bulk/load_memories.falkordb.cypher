// Bulk load of prepared memories (benchmarks, imports): no judging, no merging.
// Each row: {id, text, t, owners: [agent ids], embedding, claims (optional: what the
// text claims, graphmem.supersession.stored)}. Agents must exist.
UNWIND $rows AS m
CREATE (x:Memory {ns: $ns, id: m.id})
SET x.text = m.text, x.variants = [m.text], x.asserted_by = m.owners[0..1], x.t = m.t,
    x.recorded_at = m.t, x.claims = m.claims, x.kind = 'episodic', x.forgotten = false, x.pinned = false,
    x.seq = $seq, x.embedding = vecf32(m.embedding), x.vseq = $seq
WITH x, m
UNWIND m.owners AS owner
MATCH (a:Agent {ns: $ns, id: owner})
CREATE (a)-[:OWNS {since: m.t, recorded_at: m.t, via: 'seeded'}]->(x)
// memories loaded in bulk may keep no claims: the next opening looks whether `graphmem
// reclaim` is due (graphmem.supersession.stored.RECLAIM)
WITH count(*) AS loaded
MATCH (u:GraphmemUpgrade)
WHERE u.name STARTS WITH 'reclaim '
DELETE u

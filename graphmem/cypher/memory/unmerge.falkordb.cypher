// Undo one merge: the memory gets back its earlier wording, the merged atom becomes its
// own memory again, owned by the parties of its deposit; parties that owned the memory
// before the merge keep it. One statement, guarded by the namespace version.
// (Backend variants differ in the version lock and in how the embedding is stored.)
MATCH (n:Namespace {ns: $ns, id: $ns})
WITH n
WHERE n.version = $expected
SET n.version = $seq
WITH n
MATCH (m:Memory {ns: $ns, id: $memory})
SET m.text = $text, m.variants = $variants, m.asserted_by = $asserted_by, m.seq = $seq
CREATE (r:Memory {ns: $ns, id: $restored})
SET r.text = $atom, r.variants = [$atom], r.asserted_by = $restored_asserted_by,
    r.kind = m.kind, r.t = m.t, r.recorded_at = $now, r.place = m.place,
    r.domain = m.domain, r.forgotten = false, r.pinned = false, r.seq = $seq,
    r.embedding = vecf32($embedding), r.vseq = $seq
FOREACH (p IN $moves |
  MERGE (a:Agent {ns: $ns, id: p.agent})
  MERGE (a)-[o:OWNS]->(r)
  ON CREATE SET o.since = p.since, o.via = p.via, o.from = p.from, o.deposit = $deposit,
                o.recorded_at = $now)
FOREACH (x IN $siblings |
  MERGE (s:Memory {ns: $ns, id: x})
  MERGE (r)-[:AFFILIATED]->(s)
  SET s.seq = $seq)
CREATE (:OpLog {ns: $ns, id: $unmerge_op, seq: $seq, op: 'unmerge', at: $now,
                memory: $memory, payload: $restored})
WITH n, m, r
MATCH (op:OpLog {ns: $ns, id: $op})
SET op.undone = $unmerge_op
WITH n, m, r
OPTIONAL MATCH (d:Deposit {ns: $ns, id: $deposit})-[p:PRODUCED]->(m)
WITH n, m, r, d, collect(p) AS produced
FOREACH (p IN produced | DELETE p)
FOREACH (dd IN CASE WHEN d IS NULL THEN [] ELSE [d] END |
  CREATE (dd)-[:PRODUCED {atom: $atom, action: 'restored'}]->(r))
WITH n, m
OPTIONAL MATCH (a:Agent {ns: $ns})-[o:OWNS]->(m)
WHERE a.id IN $drop
WITH n, collect(o) AS dropped
FOREACH (o IN dropped | DELETE o)
RETURN n.version AS version

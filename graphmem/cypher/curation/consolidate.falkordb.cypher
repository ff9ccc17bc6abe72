// Several memories become one semantic fact: owned by the union of their owners, linked
// to each (CONSOLIDATED_FROM); the sources stay for audit, out of recall.
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
WITH n
CREATE (f:Memory {ns: $ns, id: $new})
SET f.text = $text, f.variants = $variants, f.asserted_by = $asserted_by, f.kind = 'semantic',
    f.t = $t, f.recorded_at = $now, f.forgotten = false, f.pinned = false, f.seq = $seq,
    f.pos = 0, f.embedding = vecf32($embedding), f.vseq = $seq
WITH n, f
UNWIND $sources AS source
MATCH (s:Memory {ns: $ns, id: source})
SET s.forgotten = true, s.seq = $seq
CREATE (f)-[:CONSOLIDATED_FROM {by: $by, at: $now}]->(s)
WITH n, f, s
OPTIONAL MATCH (a:Agent)-[o:OWNS]->(s)
FOREACH (x IN CASE WHEN a IS NULL THEN [] ELSE [a] END |
  MERGE (x)-[r:OWNS]->(f)
  ON CREATE SET r.since = $now, r.via = 'consolidated', r.from = null, r.recorded_at = $now)
WITH DISTINCT n, f
CREATE (:OpLog {ns: $ns, id: $op, seq: $seq, op: 'consolidate', at: $now, agent: $by,
                memory: f.id, payload: $payload})
RETURN f.id AS id

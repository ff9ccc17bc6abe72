// A corrected wording becomes a new memory that supersedes the old one from now on; it
// keeps the old one's owners, time, place and domain, and points to it (CORRECTS).
MATCH (n:Namespace {ns: $ns, id: $ns})
MATCH (old:Memory {ns: $ns, id: $memory})
SET n._lock = true
WITH n, old
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
CREATE (new:Memory {ns: $ns, id: $new})
SET new.text = $text, new.variants = [$text], new.asserted_by = [$by], new.kind = old.kind,
    new.t = old.t, new.recorded_at = $now, new.place = old.place, new.domain = old.domain,
    new.forgotten = false, new.pinned = coalesce(old.pinned, false), new.seq = $seq,
    new.pos = 0, new.embedding = vecf32($embedding), new.vseq = $seq
SET old.valid_until = $now, old.superseded_by = $new, old.seq = $seq
CREATE (new)-[:CORRECTS {by: $by, at: $now}]->(old)
WITH n, old, new
OPTIONAL MATCH (a:Agent)-[o:OWNS]->(old)
FOREACH (x IN CASE WHEN a IS NULL THEN [] ELSE [a] END |
  MERGE (x)-[r:OWNS]->(new)
  ON CREATE SET r.since = o.since, r.via = o.via, r.from = o.from, r.deposit = o.deposit,
                r.recorded_at = $now)
WITH DISTINCT n, new
CREATE (:OpLog {ns: $ns, id: $op, seq: $seq, op: 'correct', at: $now, agent: $by,
                memory: $memory, payload: $new})
RETURN new.id AS id

// A conflict unresolved past the namespace's TTL gets a summary memory that names it,
// at raised salience, owned by everyone who owns either claim (RFC-0011 §5). The
// conflict itself stays unresolved: only a person or an arbiter resolves it.
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
WITH n
MATCH (a:Memory {ns: $ns, id: $a})-[r:CONTRADICTS]->(b:Memory {ns: $ns, id: $b})
CREATE (s:Memory {ns: $ns, id: $id})
SET s.text = $text, s.variants = [$text], s.asserted_by = [], s.kind = 'summary',
    s.t = $at, s.recorded_at = $at, s.salience = $salience, s.salience_tags = ['conflict'],
    s.forgotten = false, s.pinned = false, s.seq = $seq, s.pos = 0, s.domain = $domain,
    s.confidence = 1.0, s.embedding = vecf32($embedding), s.vseq = $seq
SET r.summary = $id
CREATE (s)-[:SUMMARISES]->(a), (s)-[:SUMMARISES]->(b)
WITH n, s
UNWIND $owners AS owner
MERGE (o:Agent {ns: $ns, id: owner})
MERGE (o)-[w:OWNS]->(s)
ON CREATE SET w.since = $at, w.recorded_at = $at, w.via = 'inferred', w.from = null
WITH DISTINCT n, s
CREATE (:OpLog {ns: $ns, id: $op, seq: $seq, pos: 0, op: 'conflict_summary', at: $at,
                agent: $actor, memory: s.id, payload: $payload})
RETURN s.id AS id

// A privacy request: the memory's text, wordings, context, claims and vector are erased, and with
// them the text of the deposits that produced it and the log payloads that quote it; the
// node stays as a tombstone (deleted, out of recall) and the act is logged without text.
MATCH (n:Namespace {ns: $ns, id: $ns})
MATCH (m:Memory {ns: $ns, id: $memory})
SET n._lock = true
WITH n, m
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
SET m.text = '', m.variants = [], m.context = null, m.embedding = null, m.claims = null,
    m.deleted = true,
    m.forgotten = true, m.seq = $seq
WITH n, m
OPTIONAL MATCH (d:Deposit)-[p:PRODUCED]->(m)
SET d.text = null, d.context = null, p.atom = null
WITH DISTINCT n, m
OPTIONAL MATCH (o:OpLog {ns: $ns, memory: $memory})
SET o.payload = null
WITH DISTINCT n, m
CREATE (:OpLog {ns: $ns, id: $op, seq: $seq, op: 'delete', at: $now, agent: $by,
                memory: $memory})
RETURN m.id AS id

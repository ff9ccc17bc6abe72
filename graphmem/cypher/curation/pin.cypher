// Pin (or undo it) one memory, as a write guarded by the namespace version
// (the node is write-locked first, for Neo4j); the act is logged with who did it.
MATCH (n:Namespace {ns: $ns, id: $ns})
MATCH (m:Memory {ns: $ns, id: $memory})
SET n._lock = true
WITH n, m
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
SET m.pinned = $value, m.seq = $seq
CREATE (:OpLog {ns: $ns, id: $op, seq: $seq, op: $act, at: $now, agent: $by, memory: $memory})
RETURN m.id AS id

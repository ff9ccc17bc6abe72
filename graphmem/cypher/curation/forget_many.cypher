// Maintenance prunes many memories at once: out of recall, kept for audit, each logged.
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
WITH n
UNWIND $memories AS memory
MATCH (m:Memory {ns: $ns, id: memory})
WHERE NOT coalesce(m.pinned, false)
SET m.forgotten = true, m.seq = $seq
CREATE (:OpLog {ns: $ns, id: memory + ':' + $op, seq: $seq, op: 'prune', at: $now,
                agent: $by, memory: memory})
RETURN n.version AS version

// Frequent, high-confidence episodes become semantic facts (the same node, its kind
// changed; its history stays), logged as maintenance's act; guarded by the version.
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
WITH n
UNWIND $memories AS memory
MATCH (m:Memory {ns: $ns, id: memory})
SET m.kind = 'semantic', m.strength = coalesce(m.strength, 1.0),
    m.reconsolidated_at = $now, m.seq = $seq
CREATE (:OpLog {ns: $ns, id: memory + ':' + $op, seq: $seq, op: 'promote', at: $now,
                agent: $by, memory: memory})
RETURN n.version AS version

// Frequent, high-confidence episodes become semantic facts (the same node, its kind
// changed; its history stays), logged as maintenance's act; guarded by the version.
// Only memories unchanged since the pass read them ($read_at: the version of its view):
// one superseded or disputed since is left for the next pass. Returns those promoted
// (a row even when none is, so the guard sees the write done).
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
WITH n
UNWIND $memories AS memory
OPTIONAL MATCH (m:Memory {ns: $ns, id: memory})
WHERE m.seq <= $read_at
WITH n, collect(m) AS chosen
FOREACH (m IN chosen |
  SET m.kind = 'semantic', m.strength = coalesce(m.strength, 1.0),
      m.reconsolidated_at = $now, m.seq = $seq
  CREATE (:OpLog {ns: $ns, id: m.id + ':' + $op, seq: $seq, op: 'promote', at: $now,
                  agent: $by, memory: m.id}))
RETURN n.version AS version, [m IN chosen | m.id] AS promoted

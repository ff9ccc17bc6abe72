// Maintenance prunes many memories at once: out of recall, kept for audit, each logged.
// Only memories unchanged since the pass read them ($read_at: the version of its view)
// and not pinned: one another writer changed since is left for the next pass. Returns
// the memories forgotten (a row even when none is, so the guard sees the write done).
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
WITH n
UNWIND $memories AS memory
OPTIONAL MATCH (m:Memory {ns: $ns, id: memory})
WHERE NOT coalesce(m.pinned, false) AND m.seq <= $read_at
WITH n, collect(m) AS chosen
FOREACH (m IN chosen |
  SET m.forgotten = true, m.seq = $seq
  CREATE (:OpLog {ns: $ns, id: m.id + ':' + $op, seq: $seq, op: 'prune', at: $now,
                  agent: $by, memory: m.id}))
RETURN n.version AS version, [m IN chosen | m.id] AS forgotten

// Append events to a namespace's log, as a write guarded by the namespace version (the
// node is write-locked first, for Neo4j): the version orders them among its events.
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
FOREACH (i IN range(0, size($events) - 1) |
  CREATE (:OpLog {ns: $ns, id: $events[i].id, seq: $seq, pos: i, op: $events[i].op,
                  at: $at, agent: $events[i].agent, memory: $events[i].memory,
                  payload: $events[i].payload}))
RETURN n.version AS version

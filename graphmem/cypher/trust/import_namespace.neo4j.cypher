// A federated merge (RFC-0011 §10), as one write guarded by the namespace version: the
// other store's agents under namespaced ids (no trust profile adopted), its memories
// with their owners and links, and its events appended in their order with their
// original times and the merge time. Identical ids from two stores stay two identities.
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq, n.profiled = $seq  // new agents, federated: their trust differs
REMOVE n._lock
FOREACH (g IN $agents |
  MERGE (a:Agent {ns: $ns, id: g.id})
  ON CREATE SET a.created_at = $at
  SET a.kind = g.kind, a.name = g.name, a.federated_from = $node, a.original_id = g.original)
FOREACH (m IN $memories |
  MERGE (x:Memory {ns: $ns, id: m.id})
  SET x += m.props, x.seq = $seq, x.embedding = m.embedding, x.vseq = $seq)
FOREACH (o IN $owns |
  MERGE (a:Agent {ns: $ns, id: o.agent})
  MERGE (x:Memory {ns: $ns, id: o.memory})
  MERGE (a)-[r:OWNS]->(x)
  ON CREATE SET r.since = o.since, r.recorded_at = $at, r.via = o.via, r.from = o.from)
FOREACH (l IN $links |
  MERGE (x:Memory {ns: $ns, id: l[0]})
  MERGE (y:Memory {ns: $ns, id: l[1]})
  MERGE (x)-[:AFFILIATED]->(y))
FOREACH (c IN $contradicts |
  MERGE (x:Memory {ns: $ns, id: c.a})
  MERGE (y:Memory {ns: $ns, id: c.b})
  MERGE (x)-[r:CONTRADICTS]->(y)
  ON CREATE SET r.noted_at = c.noted_at, r.resolved = c.resolved)
FOREACH (i IN range(0, size($events) - 1) |
  MERGE (e:OpLog {ns: $ns, id: $events[i].id})
  ON CREATE SET e.seq = $seq, e.pos = i, e.op = $events[i].op, e.at = $events[i].at,
                e.merged_at = $at, e.agent = $events[i].agent,
                e.memory = $events[i].memory, e.payload = $events[i].payload,
                e.federated_from = $node)
CREATE (:OpLog {ns: $ns, id: $op, seq: $seq, pos: size($events), op: 'federation',
                at: $at, agent: $actor, payload: $payload})
RETURN n.version AS version

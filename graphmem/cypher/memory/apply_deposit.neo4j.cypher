// One deposit, applied as one statement: nothing of it is kept unless all of it is.
// The guard on the namespace version makes a writer that planned against an older
// state match no row and write nothing; it then re-plans and retries.
// Neo4j reads committed data, so the namespace node is write-locked (SET) before its
// version is compared; FalkorDB runs one query at a time and needs no lock.
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
FOREACH (ag IN $agents |
  MERGE (a:Agent {ns: $ns, id: ag})
  ON CREATE SET a.created_at = $now)
CREATE (d:Deposit {ns: $ns, id: $deposit.id})
SET d += $deposit
FOREACH (m IN $new |
  CREATE (x:Memory {ns: $ns, id: m.id})
  SET x += m.props, x.seq = $seq, x.embedding = m.embedding, x.vseq = $seq)
FOREACH (u IN $updates |
  MERGE (x:Memory {ns: $ns, id: u.id})
  SET x.text = u.text, x.variants = u.variants, x.asserted_by = u.asserted_by, x.seq = $seq,
      x.claims = coalesce(u.claims, x.claims))
FOREACH (id IN $touch |
  MERGE (x:Memory {ns: $ns, id: id})
  SET x.seq = $seq)
FOREACH (p IN $produced |
  MERGE (x:Memory {ns: $ns, id: p.memory})
  CREATE (d)-[:PRODUCED {atom: p.atom, action: p.action}]->(x))
FOREACH (o IN $owns |
  MERGE (a:Agent {ns: $ns, id: o.agent})
  MERGE (x:Memory {ns: $ns, id: o.memory})
  MERGE (a)-[r:OWNS]->(x)
  ON CREATE SET r.since = o.since, r.recorded_at = $now, r.via = o.via, r.from = o.from,
                r.deposit = $deposit.id)
FOREACH (l IN $links |
  MERGE (x:Memory {ns: $ns, id: l[0]})
  MERGE (y:Memory {ns: $ns, id: l[1]})
  MERGE (x)-[:AFFILIATED]->(y))
FOREACH (c IN $contradicts |
  MERGE (x:Memory {ns: $ns, id: c[0]})
  MERGE (y:Memory {ns: $ns, id: c[1]})
  MERGE (x)-[r:CONTRADICTS]->(y)
  ON CREATE SET r.noted_at = $now, r.resolved = false)
// A claim replaced by a later one stays, valid until the later one's time.
FOREACH (s IN $supersede |
  MERGE (x:Memory {ns: $ns, id: s.id})
  SET x.valid_until = s.valid_until, x.superseded_by = s.by, x.seq = $seq)
FOREACH (e IN $entities |
  MERGE (x:Entity {ns: $ns, id: e.id})
  SET x.name = e.name, x.type = e.type, x.aliases = e.aliases)
FOREACH (me IN $mentions |
  MERGE (x:Memory {ns: $ns, id: me[0]})
  MERGE (y:Entity {ns: $ns, id: me[1]})
  MERGE (x)-[:MENTIONS]->(y))
FOREACH (a IN $arcs |
  MERGE (arc:StoryArc {ns: $ns, id: a.arc})
  ON CREATE SET arc.entity = a.entity
  MERGE (y:Entity {ns: $ns, id: a.entity})
  MERGE (arc)-[:OF]->(y)
  MERGE (x:Memory {ns: $ns, id: a.memory})
  MERGE (arc)-[r:INCLUDES]->(x)
  SET r.t = a.t)
// A memory joins an entity's timeline between its neighbours in time: the edge that
// joined them is cut and two edges through the newcomer take its place.
FOREACH (c IN $arc_cuts |
  MERGE (x:Memory {ns: $ns, id: c.a})
  MERGE (y:Memory {ns: $ns, id: c.b})
  MERGE (x)-[r:NEXT {arc: c.arc}]->(y)
  DELETE r)
FOREACH (c IN $arc_adds |
  MERGE (x:Memory {ns: $ns, id: c.a})
  MERGE (y:Memory {ns: $ns, id: c.b})
  MERGE (x)-[:NEXT {arc: c.arc}]->(y))
// Trust (graphmem.trust.ledger): the confidences the deposit leaves, and the
// depositor's counters (recent assertions, entities, nonces, the session's gain).
FOREACH (c IN $confidence |
  MERGE (x:Memory {ns: $ns, id: c.id})
  SET x.confidence = c.confidence, x.quarantined = c.quarantined,
      x.asserted_from = c.asserted_from, x.domain = c.domain, x.seq = $seq)
FOREACH (r IN $actor |
  MERGE (a:Agent {ns: $ns, id: r.id})
  SET a.recent = r.recent, a.recent_entities = r.recent_entities, a.nonces = r.nonces,
      a.session_key = r.session_key, a.session_gain = r.session_gain)
FOREACH (e IN $oplog |
  CREATE (:OpLog {ns: $ns, id: e.id, seq: $seq, pos: e.pos, op: e.op, at: $now,
                  agent: e.agent, memory: e.memory, payload: e.payload}))
RETURN n.version AS version

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
// Nodes are created whole and each memory is set at most once, by one clause: FalkorDB
// re-indexes a node for every clause that sets it, and collects the garbage by forking
// (graphmem.statements).
CREATE (d:Deposit {ns: $ns, id: $deposit.id, agent: $deposit.agent, text: $deposit.text,
                   t: $deposit.t, recorded_at: $deposit.recorded_at, place: $deposit.place,
                   domain: $deposit.domain, witnesses: $deposit.witnesses,
                   told_by: $deposit.told_by, context: $deposit.context})
FOREACH (m IN $new |
  CREATE (x:Memory {ns: $ns, id: m.id, seq: $seq, vseq: $seq, embedding: m.embedding,
                    text: m.props.text, variants: m.props.variants,
                    asserted_by: m.props.asserted_by, pos: m.props.pos, kind: m.props.kind,
                    t: m.props.t, t_end: m.props.t_end,
                    t_granularity: m.props.t_granularity,
                    t_expression: m.props.t_expression, recorded_at: m.props.recorded_at,
                    salience: m.props.salience, salience_tags: m.props.salience_tags,
                    place: m.props.place, domain: m.props.domain, context: m.props.context,
                    claims: m.props.claims, forgotten: m.props.forgotten,
                    pinned: m.props.pinned, valid_until: m.props.valid_until,
                    superseded_by: m.props.superseded_by, confidence: m.props.confidence,
                    quarantined: m.props.quarantined,
                    asserted_from: m.props.asserted_from}))
// merged wording, supersession, confidence: what the deposit changes of a memory
FOREACH (c IN $changes |
  MERGE (x:Memory {ns: $ns, id: c.id})
  SET x += c.props, x.seq = $seq)
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
// an entity is set only when what the deposit read of it differs from what is stored
FOREACH (e IN $entities |
  MERGE (x:Entity {ns: $ns, id: e.id})
  FOREACH (_ IN CASE WHEN x.name = e.name AND x.type = e.type AND x.aliases = e.aliases
                     THEN [] ELSE [1] END |
    SET x.name = e.name, x.type = e.type, x.aliases = e.aliases))
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
// Trust (graphmem.trust.ledger): the depositor's counters (recent assertions, entities,
// nonces, the session's gain); the confidences the deposit leaves are among $changes.
FOREACH (r IN $actor |
  MERGE (a:Agent {ns: $ns, id: r.id})
  SET a.recent = r.recent, a.recent_entities = r.recent_entities, a.nonces = r.nonces,
      a.session_key = r.session_key, a.session_gain = r.session_gain)
FOREACH (e IN $oplog |
  CREATE (:OpLog {ns: $ns, id: e.id, seq: $seq, pos: e.pos, op: e.op, at: $now,
                  agent: e.agent, memory: e.memory, payload: e.payload}))
RETURN n.version AS version

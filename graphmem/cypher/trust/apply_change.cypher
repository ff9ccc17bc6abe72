// One change of trust, as a write guarded by the namespace version (the node is
// write-locked first, for Neo4j): an agent's profile fields ($profile), optionally its
// trust in one domain ($score from $by; '*' is the default), the confidences a replay
// with the new trust gives, the agents' session gains, and the change's events.
// n.profiled: the version of the last write that may have changed a trust profile (what
// memory/recall_state reads to know whether the profiles a process keeps still hold).
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq, n.profiled = $seq,
    n.trust_version = coalesce(n.trust_version, 0) + CASE WHEN $score IS NULL THEN 0 ELSE 1 END,
    n.trust_policy = coalesce($policy, n.trust_policy)
REMOVE n._lock
WITH n
MERGE (a:Agent {ns: $ns, id: $agent})
ON CREATE SET a.created_at = $at
SET a += $profile
WITH n, a
OPTIONAL MATCH (:Agent)-[old:TRUSTS]->(a)
WHERE old.domain = $domain
WITH n, a, collect(old) AS olds
FOREACH (o IN CASE WHEN $score IS NULL THEN [] ELSE olds END | DELETE o)
FOREACH (_ IN CASE WHEN $score IS NULL THEN [] ELSE [1] END |
  MERGE (v:Agent {ns: $ns, id: $by})
  CREATE (v)-[:TRUSTS {domain: $domain, score: $score, version: n.trust_version, at: $at}]->(a)
  SET a.trust_version = n.trust_version, a.verified_by = $by, a.verified_at = $at)
FOREACH (c IN $confidence |
  MERGE (x:Memory {ns: $ns, id: c.id})
  SET x.confidence = c.confidence, x.quarantined = c.quarantined,
      x.epistemic = c.epistemic, x.seq = $seq)
FOREACH (s IN $sessions |
  MERGE (g:Agent {ns: $ns, id: s.id})
  SET g.session_gain = s.gain)
// the signed acts' nonces, so that a signature is never accepted twice
FOREACH (r IN $nonces |
  MERGE (g:Agent {ns: $ns, id: r.id})
  SET g.nonces = r.nonces)
FOREACH (i IN range(0, size($events) - 1) |
  CREATE (:OpLog {ns: $ns, id: $events[i].id, seq: $seq, pos: i, op: $events[i].op,
                  at: $at, agent: $events[i].agent, memory: $events[i].memory,
                  payload: $events[i].payload}))
RETURN n.version AS version, n.trust_version AS trust_version

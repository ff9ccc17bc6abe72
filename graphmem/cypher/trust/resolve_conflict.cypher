// A person or an authorised arbiter resolves a conflict: the edge records the winner,
// who decided and when; the loser keeps its text and owners, at a lower confidence.
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
WITH n
MATCH (w:Memory {ns: $ns, id: $winner})-[r:CONTRADICTS]-(l:Memory {ns: $ns, id: $loser})
SET r.resolved = true, r.winner = $winner, r.resolved_by = $by, r.resolved_at = $at,
    l.confidence = $loser_confidence, l.seq = $seq, w.seq = $seq
WITH DISTINCT n
FOREACH (r IN $nonces |
  MERGE (g:Agent {ns: $ns, id: r.id})
  SET g.nonces = r.nonces)
CREATE (:OpLog {ns: $ns, id: $op, seq: $seq, pos: 0, op: 'conflict_resolved', at: $at,
                agent: $by, memory: $loser, payload: $payload})
RETURN n.version AS version

// An agent links two memories it owns (AFFILIATED); both are stamped for the views.
MATCH (n:Namespace {ns: $ns, id: $ns})
WHERE n.version = $expected
MATCH (a:Agent {ns: $ns, id: $agent})-[:OWNS]->(m:Memory {ns: $ns, id: $memory})
MATCH (a)-[:OWNS]->(x:Memory {ns: $ns, id: $other})
WHERE m <> x
MERGE (m)-[:AFFILIATED]->(x)
SET n.version = $seq, m.seq = $seq, x.seq = $seq
RETURN m.id AS id, x.id AS other

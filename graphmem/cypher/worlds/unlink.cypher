// An agent removes the AFFILIATED link, either direction, between two memories it owns.
MATCH (n:Namespace {ns: $ns, id: $ns})
WHERE n.version = $expected
MATCH (a:Agent {ns: $ns, id: $agent})-[:OWNS]->(m:Memory {ns: $ns, id: $memory})
MATCH (a)-[:OWNS]->(x:Memory {ns: $ns, id: $other})
MATCH (m)-[r:AFFILIATED]-(x)
SET n.version = $seq, m.seq = $seq, x.seq = $seq
DELETE r
RETURN m.id AS id, x.id AS other

// The memories linked to one the agent owns, that the agent owns too (owner-scoped).
MATCH (a:Agent {ns: $ns, id: $agent})-[:OWNS]->(m:Memory {ns: $ns, id: $memory})
MATCH (m)-[:AFFILIATED]-(x:Memory)<-[:OWNS]-(a)
WHERE coalesce(x.forgotten, false) = false
RETURN DISTINCT x.id AS id, x.text AS text
ORDER BY id

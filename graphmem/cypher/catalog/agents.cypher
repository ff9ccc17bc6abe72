// The agents of a namespace: kind, display name, and how many memories each owns.
MATCH (a:Agent {ns: $ns})
OPTIONAL MATCH (a)-[:OWNS]->(m:Memory)
RETURN a.id AS agent, a.kind AS kind, a.name AS name, count(m) AS memories
ORDER BY agent
LIMIT $limit

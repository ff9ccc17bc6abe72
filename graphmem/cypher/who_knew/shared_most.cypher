// Pairs of agents that share the most memories.
MATCH (a:Agent {ns: $ns})-[:OWNS]->(m:Memory)<-[:OWNS]-(b:Agent {ns: $ns})
WHERE a.id < b.id
RETURN a.id AS agent_a, b.id AS agent_b, count(m) AS shared
ORDER BY shared DESC, agent_a, agent_b
LIMIT $limit

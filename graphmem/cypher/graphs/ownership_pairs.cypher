// Pairs of agents and the number of live memories both own: the ownership graph.
MATCH (a:Agent {ns: $ns})-[:OWNS]->(m:Memory)<-[:OWNS]-(b:Agent {ns: $ns})
WHERE a.id < b.id AND coalesce(m.forgotten, false) = false
RETURN a.id AS source, b.id AS target, count(m) AS shared
ORDER BY source, target

// Live memories of a namespace (no embedding) with their owners and linked memories,
// the most widely owned first, at most $limit: the combined agents–memories graph.
MATCH (m:Memory {ns: $ns})
WHERE coalesce(m.forgotten, false) = false
OPTIONAL MATCH (a:Agent)-[:OWNS]->(m)
WITH m, collect(a.id) AS owners
OPTIONAL MATCH (m)-[:AFFILIATED]->(x:Memory)
WITH m, owners, collect(x.id) AS linked
RETURN m.id AS id, m.text AS text, owners, linked
ORDER BY size(owners) DESC, id
LIMIT $limit

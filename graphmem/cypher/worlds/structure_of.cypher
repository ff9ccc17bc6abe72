// Owners and link count of each listed memory (the entries a run wrote), for the
// per-round structure of a world run.
MATCH (m:Memory {ns: $ns})
WHERE m.id IN $ids AND coalesce(m.forgotten, false) = false
OPTIONAL MATCH (a:Agent)-[:OWNS]->(m)
WITH m, collect(a.id) AS owners
OPTIONAL MATCH (m)-[:AFFILIATED]-(x:Memory)
RETURN m.id AS id, owners, count(DISTINCT x) AS links

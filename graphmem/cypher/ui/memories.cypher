// Chosen memories' texts, times, owners and vectors (the consolidation preview).
MATCH (m:Memory {ns: $ns})
WHERE m.id IN $ids AND coalesce(m.deleted, false) = false
OPTIONAL MATCH (a:Agent)-[:OWNS]->(m)
RETURN m.id AS id, m.text AS text, m.t AS t, m.variants AS variants,
       m.embedding AS embedding, collect(DISTINCT a.id) AS owners

// Every agent of a namespace with its kind, name and how many live memories it owns.
MATCH (a:Agent {ns: $ns})
OPTIONAL MATCH (a)-[:OWNS]->(m:Memory)
WHERE coalesce(m.forgotten, false) = false
RETURN a.id AS id, a.name AS name, a.kind AS kind, count(m) AS owned
ORDER BY id

// Every relationship between two nodes of a namespace, ends named by label and id.
MATCH (a {ns: $ns})-[r]->(b {ns: $ns})
RETURN labels(a)[0] AS from_label, a.id AS from_id, type(r) AS type,
       properties(r) AS props, labels(b)[0] AS to_label, b.id AS to_id
ORDER BY from_id, type, to_id

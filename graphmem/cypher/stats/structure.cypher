// Store structure of a namespace: entries, multi-owner and linked records, deepest merge.
MATCH (m:Memory {ns: $ns})
WHERE coalesce(m.forgotten, false) = false
OPTIONAL MATCH (a:Agent)-[:OWNS]->(m)
WITH m, count(a) AS owners
OPTIONAL MATCH (m)-[:AFFILIATED]-(x:Memory)
WITH m, owners, count(x) AS links
RETURN count(m) AS entries,
       sum(CASE WHEN owners > 1 THEN 1 ELSE 0 END) AS multi_owner,
       sum(CASE WHEN links > 0 THEN 1 ELSE 0 END) AS linked,
       max(owners) AS max_owners

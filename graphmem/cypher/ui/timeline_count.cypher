// How many memories the timeline pages through (as ui/timeline_page selects them).
MATCH (m:Memory {ns: $ns})
WHERE coalesce(m.deleted, false) = false
  AND ($agent IS NULL OR (:Agent {ns: $ns, id: $agent})-[:OWNS]->(m))
RETURN count(m) AS total

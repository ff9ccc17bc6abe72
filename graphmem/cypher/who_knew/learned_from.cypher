// From whom an agent learned things (optionally only memories whose text contains $text).
MATCH (a:Agent {ns: $ns, id: $agent})-[o:OWNS]->(m:Memory)
WHERE o.from IS NOT NULL
  AND ($text IS NULL OR toLower(m.text) CONTAINS toLower($text))
RETURN o.from AS source, m.id AS memory, m.text AS text, o.via AS via, o.since AS since
ORDER BY since, memory
LIMIT $limit

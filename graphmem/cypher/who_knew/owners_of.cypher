// Who owns a memory, matched by text: every owner, how and from whom they learned it,
// and since when (world time, epoch ms).
MATCH (m:Memory {ns: $ns})
WHERE toLower(m.text) CONTAINS toLower($text)
MATCH (a:Agent)-[o:OWNS]->(m)
RETURN m.id AS memory, m.text AS text, a.id AS agent, o.via AS via, o.from AS from,
       o.since AS since
ORDER BY memory, since, agent
LIMIT $limit

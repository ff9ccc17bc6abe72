// What an agent knew at or before a time (epoch ms, world time), latest first.
MATCH (a:Agent {ns: $ns, id: $agent})-[o:OWNS]->(m:Memory)
WHERE o.since <= $at AND coalesce(m.forgotten, false) = false
RETURN m.id AS memory, m.text AS text, o.via AS via, o.from AS from, o.since AS since
ORDER BY since DESC, memory
LIMIT $limit

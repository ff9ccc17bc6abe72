// Every namespace of the store, whether it is strict, and how many agents and memories it has.
MATCH (n:Namespace)
OPTIONAL MATCH (a:Agent {ns: n.ns})
WITH n, count(a) AS agents
OPTIONAL MATCH (m:Memory {ns: n.ns})
RETURN n.ns AS ns, coalesce(n.strict, false) AS strict, agents, count(m) AS memories
ORDER BY ns
LIMIT $limit

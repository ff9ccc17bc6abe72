// Neo4j Browser, view "combined": agents, what they own, and how memories link.
MATCH p = (a:Agent {ns: $ns})-[:OWNS]->(m:Memory)
OPTIONAL MATCH q = (m)-[:AFFILIATED]-(:Memory)
RETURN p, q
LIMIT 300

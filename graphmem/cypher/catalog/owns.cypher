// Whether an agent owns a memory (the MCP server lets an agent curate only its own).
OPTIONAL MATCH (a:Agent {ns: $ns, id: $agent})-[:OWNS]->(m:Memory {ns: $ns, id: $memory})
RETURN count(m) > 0 AS owns

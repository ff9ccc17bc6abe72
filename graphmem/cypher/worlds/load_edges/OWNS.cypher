// Restore the OWNS relationships (:Agent)-[:OWNS]->(:Memory) of a namespace from a dump.
UNWIND $rows AS r
MATCH (a:Agent {ns: $ns, id: r.from_id})
MATCH (b:Memory {ns: $ns, id: r.to_id})
CREATE (a)-[e:OWNS]->(b)
SET e += r.props
RETURN count(e) AS restored

// Restore the AFFILIATED relationships (:Memory)-[:AFFILIATED]->(:Memory) of a namespace from a dump.
UNWIND $rows AS r
MATCH (a:Memory {ns: $ns, id: r.from_id})
MATCH (b:Memory {ns: $ns, id: r.to_id})
CREATE (a)-[e:AFFILIATED]->(b)
SET e += r.props
RETURN count(e) AS restored

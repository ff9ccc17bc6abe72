// Restore the MENTIONS relationships (:Memory)-[:MENTIONS]->(:Entity) of a namespace from a dump.
UNWIND $rows AS r
MATCH (a:Memory {ns: $ns, id: r.from_id})
MATCH (b:Entity {ns: $ns, id: r.to_id})
CREATE (a)-[e:MENTIONS]->(b)
SET e += r.props
RETURN count(e) AS restored

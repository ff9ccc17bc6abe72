// Restore the PRODUCED relationships (:Deposit)-[:PRODUCED]->(:Memory) of a namespace from a dump.
UNWIND $rows AS r
MATCH (a:Deposit {ns: $ns, id: r.from_id})
MATCH (b:Memory {ns: $ns, id: r.to_id})
CREATE (a)-[e:PRODUCED]->(b)
SET e += r.props
RETURN count(e) AS restored

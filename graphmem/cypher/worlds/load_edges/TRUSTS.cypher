// Restore the TRUSTS relationships (:Agent)-[:TRUSTS]->(:Agent) of a namespace from a dump.
UNWIND $rows AS r
MATCH (a:Agent {ns: $ns, id: r.from_id})
MATCH (b:Agent {ns: $ns, id: r.to_id})
CREATE (a)-[e:TRUSTS]->(b)
SET e += r.props
RETURN count(e) AS restored

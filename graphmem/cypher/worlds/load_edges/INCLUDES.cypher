// Restore the INCLUDES relationships (:StoryArc)-[:INCLUDES]->(:Memory) of a namespace from a dump.
UNWIND $rows AS r
MATCH (a:StoryArc {ns: $ns, id: r.from_id})
MATCH (b:Memory {ns: $ns, id: r.to_id})
CREATE (a)-[e:INCLUDES]->(b)
SET e += r.props
RETURN count(e) AS restored

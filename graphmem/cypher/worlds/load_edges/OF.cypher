// Restore the OF relationships (:StoryArc)-[:OF]->(:Entity) of a namespace from a dump.
UNWIND $rows AS r
MATCH (a:StoryArc {ns: $ns, id: r.from_id})
MATCH (b:Entity {ns: $ns, id: r.to_id})
CREATE (a)-[e:OF]->(b)
SET e += r.props
RETURN count(e) AS restored

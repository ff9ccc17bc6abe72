// Neo4j Browser, view "timeline": one entity's StoryArc and the memories along it.
MATCH (arc:StoryArc {ns: $ns})-[:OF]->(e:Entity)
WHERE toLower(e.name) = toLower($entity)
MATCH p = (arc)-[:INCLUDES]->(:Memory)
RETURN p

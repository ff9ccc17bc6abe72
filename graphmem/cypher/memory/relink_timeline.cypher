// Set one timeline's NEXT edges to what its members' order says, as one write guarded
// by the namespace version: a remember that splices a memory in meanwhile moves the
// version, and the relink reads the timeline again.
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
FOREACH (c IN $cuts |
  MERGE (x:Memory {ns: $ns, id: c[0]})
  MERGE (y:Memory {ns: $ns, id: c[1]})
  MERGE (x)-[r:NEXT {arc: $arc}]->(y)
  DELETE r)
FOREACH (c IN $adds |
  MERGE (x:Memory {ns: $ns, id: c[0]})
  MERGE (y:Memory {ns: $ns, id: c[1]})
  MERGE (x)-[:NEXT {arc: $arc}]->(y))
RETURN n.version AS version

// Restore nodes of one label from a dump; a Memory's embedding goes back as vecf32.
// (One SET: FalkorDB drops the CREATEs of rows a later WHERE filters out.)
UNWIND $rows AS r
CREATE (n:{label})
SET n += r,
    n.embedding = CASE WHEN r.embedding IS NULL THEN NULL ELSE vecf32(r.embedding) END
RETURN count(n) AS restored

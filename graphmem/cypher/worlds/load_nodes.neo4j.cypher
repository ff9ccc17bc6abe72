// Restore nodes of one label from a dump.
UNWIND $rows AS r
CREATE (n:{label})
SET n += r
RETURN count(n) AS restored

// The claims kept with a batch of memories, as one write guarded by the namespace
// version; the memories move to the new version so every view reads them again.
MATCH (n:Namespace {ns: $ns, id: $ns})
WHERE n.version = $expected
SET n.version = $seq
WITH n
UNWIND $rows AS row
MATCH (m:Memory {ns: $ns, id: row.id})
SET m.claims = row.claims, m.seq = $seq
RETURN count(m) AS updated

// New vectors for a batch of memories, as one write guarded by the namespace version;
// the memories move to the new version so every view reads them again. The namespace
// node is write-locked (SET) before its version is compared.
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n._lock = true
WITH n
WHERE n.version = $expected
SET n.version = $seq
REMOVE n._lock
WITH n
UNWIND $rows AS row
MATCH (m:Memory {ns: $ns, id: row.id})
SET m.embedding = row.embedding, m.vseq = $seq, m.seq = $seq
RETURN count(m) AS updated

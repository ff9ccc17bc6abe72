// An agent forgets a memory: its ownership goes; with no owner left the memory is
// marked forgotten (kept for the log, out of every count and recall). Guarded by the
// namespace version like every write, and stamped so in-process views catch up.
MATCH (n:Namespace {ns: $ns, id: $ns})
WHERE n.version = $expected
MATCH (a:Agent {ns: $ns, id: $agent})-[o:OWNS]->(m:Memory {ns: $ns, id: $memory})
OPTIONAL MATCH (:Agent)-[every:OWNS]->(m)
WITH n, m, o, count(every) AS owners
SET n.version = $seq, m.seq = $seq, m.forgotten = owners <= 1
DELETE o
RETURN m.id AS id, owners - 1 AS owners_left

// Every namespace's version, and the latest write any of its memories or log entries
// carries: none may be beyond the version.
MATCH (n:Namespace)
OPTIONAL MATCH (m:Memory {ns: n.ns})
WITH n, max(m.seq) AS memory_seq
OPTIONAL MATCH (o:OpLog {ns: n.ns})
RETURN n.ns AS ns, n.version AS version, memory_seq, max(o.seq) AS op_seq

// Merges into a memory that have not been undone, latest first.
MATCH (op:OpLog {ns: $ns, memory: $memory, op: 'merge'})
WHERE op.undone IS NULL
RETURN op.id AS id, op.payload AS payload, op.agent AS agent, op.seq AS seq
ORDER BY op.seq DESC

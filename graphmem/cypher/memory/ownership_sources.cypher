// The deposits a memory's ownership stands on: the one that created (or restored) it and
// those of its merges that were not undone, each with its parties.
MATCH (d:Deposit {ns: $ns})-[p:PRODUCED]->(m:Memory {ns: $ns, id: $memory})
WHERE p.action IN ['created', 'restored'] OR d.id IN $merged
RETURN DISTINCT d.id AS deposit, d.agent AS agent, d.witnesses AS witnesses

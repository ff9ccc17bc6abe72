// Register (or update) an agent of the namespace. n.named counts the registrations: a
// process keeps the names it read while it stays (memory/recall_state and
// trust/agent_state return it). No row: the namespace is gone.
MATCH (n:Namespace {ns: $ns, id: $ns})
MERGE (a:Agent {ns: $ns, id: $id})
ON CREATE SET a.created_at = $now
SET a.kind = coalesce($kind, a.kind), a.name = coalesce($name, a.name),
    n.named = coalesce(n.named, 0) + 1
RETURN a.id AS id, a.kind AS kind, a.name AS name

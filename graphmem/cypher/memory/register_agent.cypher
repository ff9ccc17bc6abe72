MERGE (a:Agent {ns: $ns, id: $id})
ON CREATE SET a.created_at = $now
SET a.kind = coalesce($kind, a.kind), a.name = coalesce($name, a.name)
RETURN a.id AS id, a.kind AS kind, a.name AS name

// What a view snapshot must match to be used: the store's schema steps and when its
// first step ran (the store's birth), and the namespace's epoch and creation time (a
// dropped and recreated namespace has new ones) and version.
OPTIONAL MATCH (s:GraphmemSchema)
WITH s ORDER BY s.name
WITH collect(s.name) AS steps, min(s.applied_at) AS born
OPTIONAL MATCH (n:Namespace {ns: $ns, id: $ns})
RETURN steps, born, n.epoch AS epoch, n.created_at AS created_at, n.version AS version

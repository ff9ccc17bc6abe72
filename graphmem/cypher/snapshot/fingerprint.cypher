// What a view snapshot must match to be used: the store's schema steps and when its
// first step ran (the store's birth), and the namespace's creation time and version.
// A dropped and recreated namespace has a new created_at; another store another birth.
OPTIONAL MATCH (s:GraphmemSchema)
WITH s ORDER BY s.name
WITH collect(s.name) AS steps, min(s.applied_at) AS born
OPTIONAL MATCH (n:Namespace {ns: $ns, id: $ns})
RETURN steps, born, n.created_at AS created_at, n.version AS version

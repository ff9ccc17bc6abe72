// A namespace node carries the version that every write to the namespace advances.
MERGE (n:Namespace {ns: $ns, id: $ns})
ON CREATE SET n.version = 0, n.strict = $strict, n.created_at = $now
RETURN n.version AS version, n.strict AS strict

// A namespace node carries the version that every write to the namespace advances, and
// an epoch that a new namespace of the same name (after a drop) does not share: a handle
// whose view has another epoch rebuilds it.
MERGE (n:Namespace {ns: $ns, id: $ns})
ON CREATE SET n.version = 0, n.strict = $strict, n.created_at = $now, n.epoch = $epoch
RETURN n.version AS version, n.strict AS strict, n.epoch AS epoch,
       n.trust_policy AS trust_policy

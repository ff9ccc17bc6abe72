MATCH (n:Namespace {ns: $ns, id: $ns})
RETURN n.version AS version, n.strict AS strict, n.epoch AS epoch,
       n.trust_policy AS trust_policy

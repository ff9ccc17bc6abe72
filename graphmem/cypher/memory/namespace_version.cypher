// What a write or a recall reads of its namespace first: its version, strictness,
// epoch, trust policy and decay settings (one round trip for all of them).
MATCH (n:Namespace {ns: $ns, id: $ns})
RETURN n.version AS version, n.strict AS strict, n.epoch AS epoch,
       n.trust_policy AS trust_policy, n.decay AS decay

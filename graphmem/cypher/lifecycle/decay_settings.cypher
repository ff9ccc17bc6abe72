MATCH (n:Namespace {ns: $ns, id: $ns})
RETURN n.decay AS decay

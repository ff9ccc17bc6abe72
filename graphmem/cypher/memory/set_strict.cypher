MATCH (n:Namespace {ns: $ns, id: $ns}) SET n.strict = $strict RETURN n.strict AS strict

MATCH (n:Namespace {ns: $ns, id: $ns}) SET n.version = $version RETURN n.version AS version

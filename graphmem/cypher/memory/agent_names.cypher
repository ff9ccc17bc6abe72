MATCH (a:Agent {ns: $ns}) WHERE a.id IN $ids RETURN a.id AS id, a.name AS name

MATCH (a:Agent {ns: $ns, id: $id}) RETURN a.name AS name

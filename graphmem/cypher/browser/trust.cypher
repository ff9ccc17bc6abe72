// Neo4j Browser: who trusts whom in a namespace, in which domain and how much, with
// the memories each trusted agent asserted (set :param ns => 'your-namespace').
MATCH (v:Agent {ns: $ns})-[t:TRUSTS]->(a:Agent {ns: $ns})
OPTIONAL MATCH (a)-[o:OWNS]->(m:Memory {ns: $ns})
WHERE a.id IN m.asserted_by
RETURN v, t, a, o, m
LIMIT 300

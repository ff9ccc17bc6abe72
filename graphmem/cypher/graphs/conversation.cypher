// The conversation graph of a namespace: who messaged whom, how often (world runs
// count messages on MESSAGED edges).
MATCH (a:Agent {ns: $ns})-[r:MESSAGED]->(b:Agent {ns: $ns})
RETURN a.id AS source, b.id AS target, r.count AS count
ORDER BY source, target

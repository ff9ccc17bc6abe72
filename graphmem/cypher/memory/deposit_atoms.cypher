MATCH (d:Deposit {ns: $ns, id: $deposit})-[:PRODUCED]->(x:Memory)
RETURN DISTINCT x.id AS id

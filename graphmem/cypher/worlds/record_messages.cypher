// Messages of one round between characters, counted on a MESSAGED edge per ordered pair:
// the conversation graph of a run lives in the store beside its memories.
UNWIND $pairs AS p
MATCH (a:Agent {ns: $ns, id: p.sender})
MATCH (b:Agent {ns: $ns, id: p.recipient})
MERGE (a)-[r:MESSAGED]->(b)
SET r.count = coalesce(r.count, 0) + p.count,
    r.first_round = coalesce(r.first_round, p.round), r.last_round = p.round
RETURN count(r) AS pairs

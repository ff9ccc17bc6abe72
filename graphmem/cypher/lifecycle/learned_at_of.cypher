// When each of some memories was first learned on the conversation's own clock (see
// learned_at.cypher): the hits of one recall on a namespace whose decay uses that clock.
UNWIND $ids AS id
MATCH (a:Agent)-[o:OWNS]->(m:Memory {ns: $ns, id: id})
RETURN m.id AS id, min(o.since) AS learned

// When each memory of a namespace was first learned on the conversation's own clock: the
// earliest `since` of its OWNS edges (the deposit's `at`, else its write time). Decay's
// "deposit" clock measures recency from it, so a replayed history ages as it happened.
MATCH (a:Agent)-[o:OWNS]->(m:Memory {ns: $ns})
RETURN m.id AS id, min(o.since) AS learned

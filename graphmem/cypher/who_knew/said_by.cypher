// Who asserted a memory (matched by text), how far each is trusted in its domain, and
// the memory's confidence: what to weigh a claim by.
MATCH (m:Memory {ns: $ns})
WHERE toLower(m.text) CONTAINS toLower($text)
UNWIND m.asserted_by AS asserter
MATCH (a:Agent {ns: $ns, id: asserter})
OPTIONAL MATCH (:Agent)-[t:TRUSTS]->(a)
WHERE t.domain IN [coalesce(m.domain, 'general'), '*']
WITH m, a, collect({domain: t.domain, score: t.score}) AS trusts
RETURN m.id AS memory, m.text AS text, m.confidence AS confidence,
       coalesce(m.domain, 'general') AS domain, a.id AS agent, a.revoked AS revoked,
       a.quarantined_until AS quarantined_until,
       [x IN trusts WHERE x.domain IS NOT NULL] AS trusts
ORDER BY memory, agent
LIMIT $limit

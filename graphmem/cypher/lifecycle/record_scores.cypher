// Each memory's utility and its three terms, as maintenance last scored them, so that
// people can read them in Cypher (ORDER BY m.utility).
UNWIND $rows AS row
MATCH (m:Memory {ns: $ns, id: row.id})
SET m.utility = row.s, m.recency = row.r, m.relevance = row.e, m.human_utility = row.u,
    m.scored_at = $now
RETURN count(m) AS scored

// Each memory's utility and its three terms, as maintenance last scored them, so that
// people can read them in Cypher (ORDER BY m.utility). Only where the memory is still
// the version the pass scored (row.seq): one changed since (pinned, merged, superseded)
// keeps what it had, and the next pass scores what it is now.
UNWIND $rows AS row
MATCH (m:Memory {ns: $ns, id: row.id})
WHERE m.seq = row.seq
SET m.utility = row.s, m.recency = row.r, m.relevance = row.e, m.human_utility = row.u,
    m.scored_at = $now
RETURN collect(m.id) AS scored

// What a federated merge copies from a namespace: its memories with their owners and
// links (the receiving store re-weighs their confidence under its own trust policy).
MATCH (m:Memory {ns: $ns})
OPTIONAL MATCH (a:Agent)-[o:OWNS]->(m)
WITH m, collect({agent: a.id, since: o.since, via: o.via, from: o.from}) AS owns
OPTIONAL MATCH (m)-[:AFFILIATED]->(x:Memory)
WITH m, owns, collect(x.id) AS affiliated
OPTIONAL MATCH (m)-[c:CONTRADICTS]->(y:Memory)
RETURN m.id AS id, m.text AS text, m.variants AS variants, m.asserted_by AS asserted_by,
       m.asserted_from AS asserted_from, m.embedding AS embedding, m.kind AS kind, m.t AS t,
       m.recorded_at AS recorded_at, m.place AS place, m.domain AS domain,
       m.salience AS salience, m.forgotten AS forgotten, m.pinned AS pinned,
       m.valid_until AS valid_until, m.superseded_by AS superseded_by,
       m.quarantined AS quarantined, m.epistemic AS epistemic, m.pos AS pos, m.seq AS seq,
       m.claims AS claims,
       [o IN owns WHERE o.agent IS NOT NULL] AS owns, affiliated,
       collect(CASE WHEN y IS NULL THEN NULL ELSE {other: y.id, noted_at: c.noted_at,
                    resolved: coalesce(c.resolved, false)} END) AS contradicts
ORDER BY seq, pos

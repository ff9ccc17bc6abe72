// Conflicts of a namespace: both claims, who asserted them, their confidences, since
// when, and whether (and how) they were resolved.
MATCH (a:Memory {ns: $ns})-[r:CONTRADICTS]->(b:Memory {ns: $ns})
WHERE ($unresolved = false OR coalesce(r.resolved, false) = false)
RETURN a.id AS a, a.text AS a_text, a.asserted_by AS a_asserted_by,
       a.confidence AS a_confidence, b.id AS b, b.text AS b_text,
       b.asserted_by AS b_asserted_by, b.confidence AS b_confidence,
       a.superseded_by = b.id OR b.superseded_by = a.id AS supersession,
       r.noted_at AS noted_at, coalesce(r.resolved, false) AS resolved, r.winner AS winner,
       r.resolved_by AS resolved_by, r.summary AS summary
ORDER BY noted_at, a, b
LIMIT $limit

// One page of the timeline: a namespace's memories (those $agent owns, when $agent is
// given; erased ones left out) in the order they happened (when learned, for memories
// without a time), with what the page shows of each: owners, conflicts (with whether
// they were replaced), supersession and the fact it was consolidated into. Memories of
// one time come in the order they were recorded, as on a StoryArc.
MATCH (m:Memory {ns: $ns})
WHERE coalesce(m.deleted, false) = false
  AND ($agent IS NULL OR (:Agent {ns: $ns, id: $agent})-[:OWNS]->(m))
WITH m
ORDER BY coalesce(m.t, m.recorded_at), coalesce(m.recorded_at, 0), m.id
SKIP $skip LIMIT $limit
OPTIONAL MATCH (a:Agent)-[:OWNS]->(m)
WITH m, collect(DISTINCT a.id) AS owners
OPTIONAL MATCH (m)-[:CONTRADICTS]-(c:Memory)
WITH m, owners,
     collect(DISTINCT {id: c.id, text: c.text, superseded_by: c.superseded_by}) AS conflicts
OPTIONAL MATCH (f:Memory)-[:CONSOLIDATED_FROM]->(m)
RETURN m.id AS id, m.text AS text, m.t AS t, m.recorded_at AS recorded_at, m.kind AS kind,
       m.pinned AS pinned, m.forgotten AS forgotten, m.valid_until AS valid_until,
       m.superseded_by AS superseded_by, m.salience AS salience,
       owners, conflicts,
       collect(DISTINCT f.id) AS consolidated_into
ORDER BY coalesce(t, recorded_at), coalesce(recorded_at, 0), id

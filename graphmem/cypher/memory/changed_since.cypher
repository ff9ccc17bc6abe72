// One page of the memories of a namespace written after sequence $since, with their
// owners, affiliated neighbours, contradictions and mentioned entities: what the
// in-process view needs to catch up. In the order they were written (a deposit's new
// memories share its seq and are told apart by pos; then by id), at most $page of them
// after the last one of the previous page ($after_seq, $after_pos, $after_id; -1 for the
// first page): a first read of 100,000 memories in one reply held gigabytes at once.
// Each owner comes with the deposit it learned the memory from, and each deposit with
// its context: an owner may search only the context of its own deposit.
// The embedding comes only if it was written after $vsince, the reader's version
// (m.vseq; a memory without one always sends it): a pass that re-scores or prunes every
// memory would otherwise re-send 384 floats per memory, most of a catch-up's cost.
// $after_seq is -1 (the first page) or $since. The condition is a range on m.seq less
// the rows up to the cursor, not "seq > $since OR (seq = $after_seq AND ...)": FalkorDB
// does not use the (ns, seq) index under that OR and scanned every memory of the
// namespace (170-600 ms a catch-up at a million memories, against 1 ms).
MATCH (m:Memory {ns: $ns})
WHERE m.seq >= CASE WHEN $after_seq >= 0 THEN $after_seq ELSE $since + 1 END
  AND NOT (m.seq = $after_seq AND (coalesce(m.pos, 0) < $after_pos OR
           (coalesce(m.pos, 0) = $after_pos AND m.id <= $after_id)))
WITH m
ORDER BY m.seq, coalesce(m.pos, 0), m.id
LIMIT $page
OPTIONAL MATCH (a:Agent)-[o:OWNS]->(m)
WITH m, collect(a.id) AS owners, collect(o.via) AS vias, collect(o.deposit) AS owner_deposits
OPTIONAL MATCH (d:Deposit)-[:PRODUCED]->(m)
WITH m, owners, vias, owner_deposits,
     collect(DISTINCT {id: d.id, context: d.context}) AS deposits
OPTIONAL MATCH (m)-[:AFFILIATED]-(x:Memory)
WITH m, owners, vias, owner_deposits, deposits, collect(DISTINCT x.id) AS affiliated
OPTIONAL MATCH (m)-[:CONTRADICTS]-(c:Memory)
WITH m, owners, vias, owner_deposits, deposits, affiliated,
     collect(DISTINCT c.id) AS conflicts
OPTIONAL MATCH (m)-[:MENTIONS]->(e:Entity)
RETURN m.id AS id, m.text AS text,
       CASE WHEN m.vseq IS NULL OR m.vseq > $vsince THEN m.embedding END AS embedding, m.seq AS seq, m.t AS t,
       m.place AS place, m.asserted_by AS asserted_by, m.variants AS variants,
       m.context AS context, m.valid_until AS valid_until, m.superseded_by AS superseded_by,
       m.forgotten AS forgotten, m.deleted AS deleted, m.pinned AS pinned,
       m.recorded_at AS recorded_at, m.kind AS kind, m.salience AS salience, m.pos AS pos,
       m.confidence AS confidence, m.asserted_from AS asserted_from,
       m.quarantined AS quarantined, m.domain AS domain, m.epistemic AS epistemic,
       m.claims AS claims, owners, vias, owner_deposits, deposits,
       affiliated, conflicts,
       collect(DISTINCT {id: e.id, name: e.name, type: e.type, aliases: e.aliases}) AS mentions
ORDER BY seq, coalesce(pos, 0), id

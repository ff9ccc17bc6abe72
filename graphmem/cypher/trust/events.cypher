// A namespace's event log, in order: what happened, who did it, when, to which memory.
// $kinds: a list of event kinds, or null for all; $since: epoch ms, or null.
MATCH (e:OpLog {ns: $ns})
WHERE ($kinds IS NULL OR e.op IN $kinds) AND ($since IS NULL OR e.at >= $since)
RETURN e.seq AS seq, coalesce(e.pos, 0) AS pos, e.op AS kind, e.at AS at,
       e.agent AS actor, e.memory AS memory, e.payload AS payload, e.id AS id
ORDER BY seq, pos, id
LIMIT $limit

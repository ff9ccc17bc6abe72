// The event log of a namespace, in order, as a federated merge appends it.
MATCH (e:OpLog {ns: $ns})
RETURN e.id AS id, e.seq AS seq, coalesce(e.pos, 0) AS pos, e.op AS op, e.at AS at,
       e.agent AS agent, e.memory AS memory, e.payload AS payload
ORDER BY seq, pos, id

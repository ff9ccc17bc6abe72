// The events confidence is folded from, in the namespace's order: deposits (who
// asserted what, quarantined or not, in which session), contradictions, resolutions.
MATCH (e:OpLog {ns: $ns})
WHERE e.op IN ['deposit', 'contradiction', 'conflict_resolved']
RETURN e.seq AS seq, e.pos AS pos, e.op AS op, e.agent AS agent, e.memory AS memory,
       e.payload AS payload
ORDER BY seq, pos

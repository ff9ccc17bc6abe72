// A namespace's memories in the order written, with their wordings and the claims kept
// with them (graphmem.supersession.stored): what `reclaim` reads.
MATCH (m:Memory {ns: $ns})
RETURN m.id AS id, m.text AS text, m.variants AS variants, m.claims AS claims
ORDER BY m.seq, m.pos

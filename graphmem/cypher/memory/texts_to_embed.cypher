// A namespace's memories in the order written, with the text their vector is made from.
MATCH (m:Memory {ns: $ns})
RETURN m.id AS id, m.text AS text
ORDER BY m.seq, m.pos

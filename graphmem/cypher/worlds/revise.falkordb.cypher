// An owner revises a memory's text: the new wording becomes the text, every wording
// stays in variants, the embedding follows the new text (vecf32 for the vector index).
MATCH (n:Namespace {ns: $ns, id: $ns})
WHERE n.version = $expected
MATCH (:Agent {ns: $ns, id: $agent})-[:OWNS]->(m:Memory {ns: $ns, id: $memory})
REMOVE m.embedding  // a SET over a stored vector is applied only sometimes: docs/falkordb-vector-update.md
SET n.version = $seq, m.seq = $seq, m.text = $text,
    m.variants = coalesce(m.variants, []) + [$text], m.embedding = vecf32($embedding), m.vseq = $seq
RETURN m.id AS id

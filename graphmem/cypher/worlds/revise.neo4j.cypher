// An owner revises a memory's text: the new wording becomes the text, every wording
// stays in variants, the embedding follows the new text.
MATCH (n:Namespace {ns: $ns, id: $ns})
WHERE n.version = $expected
MATCH (:Agent {ns: $ns, id: $agent})-[:OWNS]->(m:Memory {ns: $ns, id: $memory})
SET n.version = $seq, m.seq = $seq, m.text = $text,
    m.variants = coalesce(m.variants, []) + [$text], m.embedding = $embedding, m.vseq = $seq
RETURN m.id AS id

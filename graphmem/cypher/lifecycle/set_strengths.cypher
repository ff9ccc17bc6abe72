// Reconsolidation: each semantic fact's strength after the evidence since last time,
// only where the fact is still the version the pass read (row.seq).
UNWIND $rows AS row
MATCH (m:Memory {ns: $ns, id: row.id})
WHERE m.seq = row.seq
SET m.strength = row.strength, m.reconsolidated_at = $now
RETURN collect(m.id) AS updated

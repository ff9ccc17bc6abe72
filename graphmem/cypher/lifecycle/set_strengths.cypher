// Reconsolidation: each semantic fact's strength after the evidence since last time.
UNWIND $rows AS row
MATCH (m:Memory {ns: $ns, id: row.id})
SET m.strength = row.strength, m.reconsolidated_at = $now
RETURN count(m) AS updated

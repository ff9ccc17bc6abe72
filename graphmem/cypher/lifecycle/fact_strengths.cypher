MATCH (m:Memory {ns: $ns, kind: 'semantic'})
WHERE NOT coalesce(m.forgotten, false)
RETURN m.id AS id, coalesce(m.strength, 1.0) AS strength,
       coalesce(m.reconsolidated_at, m.recorded_at, 0) AS since

// Confidence and authorship of some memories: for recall's bundle and `confidence`.
UNWIND $ids AS id
MATCH (m:Memory {ns: $ns, id: id})
RETURN m.id AS id, m.confidence AS confidence, m.domain AS domain,
       m.asserted_by AS asserted_by, m.quarantined AS quarantined,
       coalesce(m.epistemic, 'asserted') AS epistemic

MATCH (s:GraphmemSchema) RETURN s.name AS name ORDER BY s.applied_at, s.name

// Remember that a named schema step ran, so it is not run again.
MERGE (s:GraphmemSchema {name: $name})
ON CREATE SET s.applied_at = $applied_at
RETURN s.name AS name

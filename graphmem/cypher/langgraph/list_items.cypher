// LangGraph store items under a namespace path, most recently updated first.
MATCH (i:StoreItem {ns: $ns})
WHERE i.path = $path OR i.path STARTS WITH $path_below
RETURN i.id AS id, i.namespace AS namespace, i.key AS key, i.value AS value,
       i.memories AS memories, i.created_at AS created_at, i.updated_at AS updated_at
ORDER BY updated_at DESC, id

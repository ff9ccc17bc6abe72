// LangGraph store items by id.
MATCH (i:StoreItem {ns: $ns})
WHERE i.id IN $ids
RETURN i.id AS id, i.namespace AS namespace, i.key AS key, i.value AS value,
       i.memories AS memories, i.created_at AS created_at, i.updated_at AS updated_at

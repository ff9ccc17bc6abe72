// A LangGraph store item (graphmem.integrations.langgraph): its key, its value as JSON,
// and the memories its text was remembered as. Items are kept apart from Memory nodes;
// the memory graph does not know about them.
MERGE (i:StoreItem {ns: $ns, id: $id})
ON CREATE SET i.created_at = $now
SET i.namespace = $namespace, i.path = $path, i.key = $key, i.value = $value,
    i.memories = $memories, i.updated_at = $now
RETURN i.created_at AS created_at

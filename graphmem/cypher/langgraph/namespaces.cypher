// The distinct namespaces of the LangGraph store items, each a list of labels.
MATCH (i:StoreItem {ns: $ns})
RETURN DISTINCT i.namespace AS namespace
ORDER BY namespace

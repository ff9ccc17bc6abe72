// Forget a LangGraph store item (the memories it deposited stay in the memory graph).
MATCH (i:StoreItem {ns: $ns, id: $id})
DELETE i

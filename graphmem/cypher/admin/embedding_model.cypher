// The embedding model the store's vectors come from, recorded by the first handle that
// opens it (a handle with another model is refused; graphmem reembed changes it).
MERGE (e:GraphmemModel {id: 'embedder'})
ON CREATE SET e.name = $name, e.recorded_at = $now
RETURN e.name AS name, e.dimension AS dimension

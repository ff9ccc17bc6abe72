MERGE (e:GraphmemModel {id: 'embedder'})
SET e.name = $name, e.dimension = $dimension, e.recorded_at = $now
RETURN e.name AS name

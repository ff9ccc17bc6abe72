// Stores made before this step had a vector (HNSW) index on Memory.embedding. Nothing
// read it (the view ranks in process: graphmem.vector_index) and every write of a memory
// paid for it; a store opening without it also skips rebuilding it on load.
DROP VECTOR INDEX FOR (m:Memory) ON (m.embedding)

// Stores made before this step had a vector (HNSW) index on Memory.embedding. Nothing
// read it (the view ranks in process: graphmem.vector_index) and every write of a memory
// paid for it; a store opening without it also skips rebuilding it on load.
DROP INDEX memory_embedding IF EXISTS

// Not a schema step: graphmem keeps no vector index in the store (see
// drop_memory_embedding). benchmarks/ann_bench.py creates it to measure the store's HNSW.
// Dimension is fixed by the embedding model (384 for all-MiniLM-L6-v2).
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (m:Memory) ON (m.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}

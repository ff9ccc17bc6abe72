// Not a schema step: graphmem keeps no vector index in the store (see
// drop_memory_embedding). benchmarks/ann_bench.py creates it to measure the store's HNSW.
// Dimension is fixed by the embedding model (384 for all-MiniLM-L6-v2).
CREATE VECTOR INDEX FOR (m:Memory) ON (m.embedding) OPTIONS {dimension: 384, similarityFunction: 'cosine'}

// Dimension is fixed by the embedding model (384 for all-MiniLM-L6-v2).
CREATE VECTOR INDEX FOR (m:Memory) ON (m.embedding) OPTIONS {dimension: 384, similarityFunction: 'cosine'}

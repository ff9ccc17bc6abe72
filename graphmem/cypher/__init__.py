"""The Cypher query files, loaded by graphmem.queries."""

// Memories changed since a sequence number are re-read into the in-process view.
CREATE INDEX memory_ns_seq IF NOT EXISTS FOR (m:Memory) ON (m.ns, m.seq)

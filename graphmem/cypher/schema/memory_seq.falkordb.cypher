// Memories changed since a sequence number are re-read into the in-process view.
CREATE INDEX FOR (m:Memory) ON (m.seq)

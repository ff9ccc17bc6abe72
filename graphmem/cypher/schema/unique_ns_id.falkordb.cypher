// The exact-match index FalkorDB needs before a uniqueness constraint on (ns, id).
CREATE INDEX FOR (n:{label}) ON (n.ns, n.id)

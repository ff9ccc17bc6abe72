// The write sequence of one memory now: a snapshot is of this store's history only if
// the memory it saw written last is still there, at that sequence or later.
MATCH (m:Memory {ns: $ns, id: $id})
RETURN m.seq AS seq

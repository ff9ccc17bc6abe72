// The upgrades recorded as done in this store (graphmem.store.upgrades).
MATCH (u:GraphmemUpgrade) RETURN u.name AS name

// Record an upgrade as done (graphmem.store.upgrades.mark_done).
MERGE (u:GraphmemUpgrade {name: $name})
ON CREATE SET u.done_at = $at
RETURN u.name AS name

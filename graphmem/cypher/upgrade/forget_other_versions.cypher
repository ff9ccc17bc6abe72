// Forget the records of an upgrade's other versions (graphmem.store.upgrades.mark_done):
// a store keeps the record of the version it was last brought to.
MATCH (u:GraphmemUpgrade)
WHERE u.name STARTS WITH $stem AND u.name <> $name
DELETE u

// Does the store hold a memory without claims read the way this release reads them
// ($version: graphmem.supersession.stored.READING)? One row if so. A stored claim is
// JSON that starts with its reading (graphmem.supersession.stored.encode_packed).
MATCH (m:Memory)
WHERE m.claims IS NULL OR NOT m.claims STARTS WITH ('{"reading":"' + $version + '"')
RETURN m.id AS id
LIMIT 1

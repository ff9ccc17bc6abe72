// One StoryArc timeline: its memories in the order remember splices them in (time, then
// when recorded, then id: graphmem.view.arc_key), and the NEXT edges that link them now.
MATCH (arc:StoryArc {ns: $ns, id: $arc})-[r:INCLUDES]->(m:Memory)
WITH arc, m, r.t AS t
ORDER BY t, coalesce(m.recorded_at, 0), m.id
WITH arc, collect(m.id) AS members
OPTIONAL MATCH (arc)-[:INCLUDES]->(x:Memory)-[n:NEXT]->(y:Memory)
WHERE n.arc = $arc
RETURN members, collect([x.id, y.id]) AS links

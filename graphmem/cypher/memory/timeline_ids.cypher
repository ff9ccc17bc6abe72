// The StoryArc timelines of a namespace: what `relink_timelines` walks, one at a time.
MATCH (arc:StoryArc {ns: $ns})
RETURN arc.id AS arc
ORDER BY arc

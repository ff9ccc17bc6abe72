// Does the store hold a timeline link (a StoryArc's NEXT edge)? One row if so.
MATCH (:Memory)-[n:NEXT]->(:Memory)
WHERE n.arc IS NOT NULL
RETURN n.arc AS arc
LIMIT 1

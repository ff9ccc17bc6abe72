// The agents of a namespace, for the timeline's choice of whose memories to show.
MATCH (a:Agent {ns: $ns})
RETURN a.id AS id
ORDER BY id

// "Now" on the conversation's own clock: the newest time an agent learned a memory of
// the namespace (maintenance's default on the deposit clock; recall's too).
MATCH (:Agent)-[o:OWNS]->(m:Memory {ns: $ns})
RETURN max(o.since) AS now

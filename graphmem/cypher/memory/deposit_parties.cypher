// The parties of a deposit and the OWNS edges they hold on one memory.
MATCH (d:Deposit {ns: $ns, id: $deposit})
MATCH (a:Agent {ns: $ns})-[o:OWNS]->(m:Memory {ns: $ns, id: $memory})
WHERE a.id = d.agent OR a.id IN d.witnesses OR a.id = d.told_by
RETURN a.id AS agent, o.since AS since, o.via AS via, o.from AS from, d.agent AS depositor

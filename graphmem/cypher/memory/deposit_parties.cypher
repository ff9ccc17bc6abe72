// The owners of one memory among the parties of a deposit (its depositor and witnesses;
// not whoever told the depositor), with the OWNS edges they hold.
MATCH (d:Deposit {ns: $ns, id: $deposit})
MATCH (a:Agent {ns: $ns})-[o:OWNS]->(m:Memory {ns: $ns, id: $memory})
WHERE a.id = d.agent OR a.id IN d.witnesses
RETURN a.id AS agent, o.since AS since, o.via AS via, o.from AS from, d.agent AS depositor

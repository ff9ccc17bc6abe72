// What a recall reads of its namespace first: what namespace_version reads, the version
// of the last write that may have changed an agent's trust profile (trust/apply_change,
// trust/import_namespace: the profiles a process keeps hold while it stays), and the
// asker's task (what the scores of its hits read: graphmem.lifecycle.maintenance), and
// how many times an agent was registered (memory/register_agent: the names a process
// keeps hold while it stays), in one round trip.
MATCH (n:Namespace {ns: $ns, id: $ns})
OPTIONAL MATCH (a:Agent {ns: $ns, id: $agent})
RETURN n.version AS version, n.strict AS strict, n.epoch AS epoch,
       n.trust_policy AS trust_policy, n.decay AS decay, n.profiled AS profiled,
       n.named AS named, a.task AS task

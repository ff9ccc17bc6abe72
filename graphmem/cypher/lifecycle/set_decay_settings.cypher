// A namespace's Intelligent Decay parameters, as JSON (graphmem.lifecycle.decay.DecaySettings).
MATCH (n:Namespace {ns: $ns, id: $ns})
SET n.decay = $decay
RETURN n.decay AS decay

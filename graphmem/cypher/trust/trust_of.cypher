// The trust profiles of several agents: each one's default and per-domain scores.
UNWIND $agents AS id
MATCH (a:Agent {ns: $ns, id: id})
OPTIONAL MATCH (:Agent)-[t:TRUSTS]->(a)
RETURN a.id AS id, a.default_trust AS default_trust, a.revoked AS revoked,
       a.federated_from AS federated_from,
       collect({domain: t.domain, score: t.score}) AS trusts

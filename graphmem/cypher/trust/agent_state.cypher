// An agent's trust profile, its name, and the counters its next write is checked against:
// permission, key, quarantine, revocation, recent assertions (rate limits), recent
// entities (high-volume alerts), accepted nonces, and the session's confidence gain.
// Its trust per domain comes with it, from the TRUSTS edges of its verifiers; and the
// namespace's state, as namespace_version reads it (a write's first round trip reads
// both: null where the namespace does not exist).
OPTIONAL MATCH (n:Namespace {ns: $ns, id: $ns})
OPTIONAL MATCH (a:Agent {ns: $ns, id: $agent})
OPTIONAL MATCH (v:Agent)-[t:TRUSTS]->(a)
WITH n, a, collect({domain: t.domain, score: t.score, by: v.id, version: t.version,
                    at: t.at}) AS trusts
RETURN a.id AS id, a.kind AS kind, a.name AS name, a.permission AS permission, a.public_key AS public_key,
       a.created_at AS created_at, a.quarantined_until AS quarantined_until,
       a.revoked AS revoked, a.recent AS recent, a.recent_entities AS recent_entities,
       a.nonces AS nonces, a.session_key AS session_key, a.session_gain AS session_gain,
       a.default_trust AS default_trust, a.trust_version AS trust_version,
       a.verified_by AS verified_by, a.verified_at AS verified_at,
       a.federated_from AS federated_from, trusts,
       n.version AS version, n.strict AS strict, n.epoch AS epoch,
       n.trust_policy AS trust_policy, n.decay AS decay, n.named AS named

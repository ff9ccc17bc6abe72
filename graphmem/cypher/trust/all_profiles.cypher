// Every agent of a namespace with its trust profile (for replays and `trust show`).
MATCH (a:Agent {ns: $ns})
OPTIONAL MATCH (v:Agent)-[t:TRUSTS]->(a)
WITH a, collect(CASE WHEN t IS NULL THEN NULL ELSE
                {domain: t.domain, score: t.score, by: v.id, version: t.version, at: t.at}
                END) AS trusts
RETURN a.id AS id, a.kind AS kind, a.permission AS permission,
       a.default_trust AS default_trust, a.trust_version AS trust_version,
       a.verified_by AS verified_by, a.verified_at AS verified_at,
       a.quarantined_until AS quarantined_until, a.revoked AS revoked,
       a.federated_from AS federated_from, a.public_key IS NOT NULL AS signs, trusts
ORDER BY a.id

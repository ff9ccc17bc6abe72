// Who trusts whom, in which domain ($domain, or null for all; '*' is an agent's default
// trust), how much, since which policy version, and when it was set.
MATCH (v:Agent {ns: $ns})-[t:TRUSTS]->(a:Agent {ns: $ns})
WHERE $domain IS NULL OR t.domain IN [$domain, '*']
RETURN v.id AS verifier, a.id AS agent, t.domain AS domain, t.score AS score,
       t.version AS version, t.at AS at
ORDER BY agent, domain
LIMIT $limit

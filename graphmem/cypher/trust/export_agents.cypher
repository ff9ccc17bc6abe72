// The agents of a namespace as a federated merge copies them: identity only (a
// receiving store never adopts another store's trust profiles).
MATCH (a:Agent {ns: $ns})
RETURN a.id AS id, a.kind AS kind, a.name AS name, a.created_at AS created_at
ORDER BY id

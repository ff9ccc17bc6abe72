// Which of these agents exist in the namespace, and their kinds and permissions.
UNWIND $ids AS id
MATCH (a:Agent {ns: $ns, id: id})
RETURN a.id AS id, a.kind AS kind, a.permission AS permission, a.revoked AS revoked

// Everything of one namespace, gone (a replay or demo starting afresh).
MATCH (n {ns: $ns}) DETACH DELETE n

// Every node of a namespace with its labels and properties (a checkpoint or an export).
MATCH (n {ns: $ns})
RETURN labels(n) AS labels, properties(n) AS props
ORDER BY props.id

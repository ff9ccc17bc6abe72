MATCH (a:Agent {ns: $ns}) WHERE a.task IS NOT NULL RETURN a.id AS agent, a.task AS task

// The task an agent works on now: Intelligent Decay scores memories by their relevance to it.
MERGE (a:Agent {ns: $ns, id: $agent})
ON CREATE SET a.created_at = $now
SET a.task = $task, a.task_at = $now
RETURN a.id AS id

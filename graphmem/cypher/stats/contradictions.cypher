MATCH (m:Memory {ns: $ns})-[r:CONTRADICTS]->(:Memory)
RETURN count(r) AS contradictions

// Neo4j Browser, view "ownership": memories owned by more than one agent, with their owners.
MATCH (m:Memory {ns: $ns})<-[:OWNS]-(a:Agent)
WITH m, collect(a) AS owners
WHERE size(owners) > 1
UNWIND owners AS a
MATCH p = (a)-[:OWNS]->(m)
RETURN p
LIMIT 500

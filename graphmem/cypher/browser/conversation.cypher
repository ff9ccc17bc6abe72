// Neo4j Browser, view "conversation": who messaged whom in a run (set :param ns => '...').
MATCH p = (a:Agent {ns: $ns})-[:MESSAGED]->(b:Agent {ns: $ns})
RETURN p

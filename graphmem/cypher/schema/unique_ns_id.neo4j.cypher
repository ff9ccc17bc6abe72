CREATE CONSTRAINT {label}_ns_id IF NOT EXISTS FOR (n:{label}) REQUIRE (n.ns, n.id) IS UNIQUE

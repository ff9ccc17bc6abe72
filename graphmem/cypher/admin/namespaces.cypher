MATCH (n:Namespace) RETURN n.ns AS ns ORDER BY ns

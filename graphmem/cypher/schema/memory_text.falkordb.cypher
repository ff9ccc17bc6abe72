CALL db.idx.fulltext.createNodeIndex('Memory', 'text')

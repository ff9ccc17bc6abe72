"""Case-study graphs of a namespace: who conversed, who shares memories, and the
combined agents–memories graph; drawn as standalone HTML and static PNG, and exported
to Neo4j (a live server or a file its own tools load).

What this package owns: reading the three views from a namespace (``data``), the
agent × agent overlap with communities ordered (``data.overlap_matrix``), drawing
(``render``: HTML with ``neo4j-viz``, PNG with matplotlib) and export (``export``:
Cypher statements, CSV for ``neo4j-admin database import``, or a Neo4j server through
the ``neo4j`` driver), always leaving the embedding out.

What it may import: the public :class:`graphmem.MemoryGraph` API (named queries from
``cypher/graphs``), :mod:`graphmem.errors`, and the world package's dump of a
namespace (:mod:`graphmem.worlds.snapshot`). The Neo4j Browser style
(``cypher/browser/graphmem.grass``) and the saved queries for each view sit beside the
other queries. The core never imports this package.
"""

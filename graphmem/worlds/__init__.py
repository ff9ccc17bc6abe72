"""Story worlds: a round-barrier simulation whose characters keep their long-term memory
in graphmem, so one run can be replayed on each memory design.

What this package owns:

- the world model (``model``: cast, environments, information carriers, the map,
  messages and conversation threads), the short-term state of a character
  (``shortterm``: goal stack, status register, the cache of its last action–result
  pairs), the action repertoire (``actions``);
- the round-barrier kernel (``kernel``): every awake character decides against one
  frozen world state, then all actions apply in a canonical order, so the outcome does
  not depend on the order characters were stepped; an event log; checkpoints of world
  and memory together (``snapshot``);
- policies (``policy``): the deterministic policy that follows the held-out rest of
  the source;
- the memory designs as the kernel sees them (``memory``), sedimentation of the worlds
  (``hamlet``) and structure per round (``metrics``), and whole runs (``run``).

What it may import: the public :class:`graphmem.MemoryGraph` API (``remember``,
``recall``, ``stats``, named queries through ``query``), :mod:`graphmem.designs`,
:mod:`graphmem.errors`, and the Hamlet TEI reader :mod:`graphmem.ingestion.hamlet`.
Its own queries are the ``cypher/worlds/*.cypher`` files. The core never imports this
package.
"""

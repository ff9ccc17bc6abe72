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
- policies: the deterministic policy that follows the held-out rest of the source
  (``policy``), and decisions from a chat model when the user gives one
  (``llm_policy``, its prompt in ``prompts/``);
- sedimentation of the worlds into a cast, map, carriers, seeded deposits and a script
  (``script`` the shared shape; ``hamlet`` from the TEI; ``novel`` the Chinese novels,
  with jieba; ``incidents`` the Russia–Ukraine incidents CSV, actors from each event's
  text by :mod:`graphmem.text`'s entity extraction; ``sources`` the four worlds by name);
- the memory designs as the kernel sees them (``memory``), structure per round
  (``metrics``), whole runs and their directories (``run``, ``report``).

What it may import: the public :class:`graphmem.MemoryGraph` API (``remember``,
``remember_many``, ``recall``, ``stats``, named queries through ``query``),
:mod:`graphmem.designs`, :mod:`graphmem.errors`, :mod:`graphmem.llm` (retries and JSON
parsing of chat-model answers), the Hamlet TEI reader
:mod:`graphmem.ingestion.hamlet`, and :mod:`graphmem.text` (the spaCy pipeline and the
WordNet table, for the incidents' actors). Its own queries are the ``cypher/worlds/*.cypher``
files. The core never imports this package.
"""

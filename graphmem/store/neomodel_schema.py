"""graphmem's data model as neomodel classes, for Neo4j users who browse with an OGM.

    from neomodel import config
    config.database_url = "bolt://neo4j:graphmem-dev@localhost:7687"
    from graphmem.store.neomodel_schema import Agent, Memory
    ada = Agent.nodes.get(ns="default", identifier="ada")
    [m.text for m in ada.owns]

The classes are read-side: graphmem writes through its own store and queries (one
transaction per deposit, owner sets merged); do not save through neomodel. neomodel is
an optional extra: ``pip install "graphmem[neomodel]"``.

What neomodel (7.x) can and cannot say about our schema (graphmem/store/schema.py):

- Uniqueness is on the pair (``ns``, ``id``) for every label. neomodel only knows
  single-property ``unique_index`` and ``index``, so ``ns`` and ``id`` are declared
  required and not unique: a single-property constraint on ``id`` would forbid the same
  id in two namespaces. Composite constraints and indexes (also ``Memory (ns, seq)``)
  come from ``MemoryGraph.open`` (the schema steps), not from neomodel.
- ``id`` is a neomodel internal, so the property is called ``identifier`` in Python
  and stored as ``id``; likewise ``OWNS.from`` is ``from_agent``.
- There is no vector index on ``Memory.embedding`` and no full-text index on
  ``Memory.text``: recall ranks by similarity and BM25 in the process, and database
  ones were maintained on every write (the text one on every property update of a
  memory) for nothing. neomodel's own vector and full-text filters therefore have
  nothing to use; use graphmem's recall for search.
"""

from __future__ import annotations

from graphmem.errors import missing

try:
    from neomodel import (
        ArrayProperty,
        BooleanProperty,
        FloatProperty,
        IntegerProperty,
        RelationshipFrom,
        RelationshipTo,
        StringProperty,
        StructuredNode,
        StructuredRel,
    )
except ImportError as exc:
    raise missing("neomodel", extra="neomodel") from exc


class GraphmemNode(StructuredNode):
    """Every graphmem node: a namespace and a stable id, unique together."""

    __abstract_node__ = True
    ns = StringProperty(required=True)
    identifier = StringProperty(required=True, db_property="id")


class Owns(StructuredRel):
    """Who knew what, since when (epoch ms), how (witnessed, told, inferred, seeded),
    and from whom."""

    since = IntegerProperty()
    recorded_at = IntegerProperty()
    via = StringProperty()
    from_agent = StringProperty(db_property="from")
    deposit = StringProperty()


class Trusts(StructuredRel):
    """The verifier's trust in an agent for one domain (``*`` for the default)."""

    domain = StringProperty()
    score = FloatProperty()
    version = IntegerProperty()
    at = IntegerProperty()


class Contradicts(StructuredRel):
    """Two claims kept side by side."""

    noted_at = IntegerProperty()
    resolved = BooleanProperty()


class Agent(GraphmemNode):
    """An agent: character, human, ai, service, process, environment or carrier."""

    kind = StringProperty()
    name = StringProperty()
    owns = RelationshipTo("Memory", "OWNS", model=Owns)
    trusts = RelationshipTo("Agent", "TRUSTS", model=Trusts)


class Memory(GraphmemNode):
    """One memory (an atom, or several merged); ``variants`` keeps every wording."""

    text = StringProperty()
    embedding = ArrayProperty(FloatProperty())
    kind = StringProperty()  # episodic, semantic, procedural, summary
    t = IntegerProperty()  # when it happened in the world, epoch ms
    seq = IntegerProperty()  # namespace version of its last change
    recorded_at = IntegerProperty()  # when graphmem learned it, epoch ms
    variants = ArrayProperty(StringProperty())
    owners = RelationshipFrom("Agent", "OWNS", model=Owns)
    affiliated = RelationshipTo("Memory", "AFFILIATED")
    contradicts = RelationshipTo("Memory", "CONTRADICTS", model=Contradicts)
    mentions = RelationshipTo("Entity", "MENTIONS")


class Entity(GraphmemNode):
    """A person, place, organisation or thing that memories mention."""

    name = StringProperty()
    aliases = ArrayProperty(StringProperty())
    type = StringProperty()
    mentioned_by = RelationshipFrom("Memory", "MENTIONS")


class StoryArc(GraphmemNode):
    """The timeline of one entity."""

    entity = StringProperty()


class Deposit(GraphmemNode):
    """What one agent remembered, before it was split into atoms."""


class OpLog(GraphmemNode):
    """One entry of the append-only operation log."""

    op = StringProperty()
    seq = IntegerProperty()
    at = IntegerProperty()


class Namespace(GraphmemNode):
    """A namespace (``id`` equals ``ns``); its version advances with every write."""

    version = IntegerProperty()
    strict = BooleanProperty()
    created_at = IntegerProperty()


#: The node classes, one per label of ``graphmem.queries.LABELS``, in that order.
NODE_CLASSES: tuple[type[GraphmemNode], ...] = (
    Agent, Memory, Entity, StoryArc, Deposit, OpLog, Namespace)

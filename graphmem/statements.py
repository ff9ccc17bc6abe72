"""The parameters of the guarded write statements, as typed objects.

A plan (``consensus.plan_deposit``, ``Writer.unmerge``) decides the rows; applying adds
the version guard (``ns``, ``expected``, ``seq``, ``now``). ``tests/test_statements.py``
checks that the parameters each one sends are exactly those of the query file, for every
backend's variant, so a renamed parameter cannot pass silently as null.

A deposit's rows are planned by concern (merges, supersession, confidences) but sent
folded, one write per memory: FalkorDB re-indexes a node once for each clause that sets
it, even to the same value, and a node created with every property in its pattern not at
all; each re-index leaves a document of garbage in its label's index, which the server
collects by forking itself (at a million memories, 60-70 ms of stalled writes and a core
for a second or two; ``docs/scaling-out.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

Row = dict[str, Any]

#: the parameters every guarded statement takes besides its rows
GUARD_PARAMS = ("ns", "expected", "seq", "now")


@dataclass(frozen=True)
class _Rows:
    def guarded(self, ns: str, version: int, now: int) -> dict[str, Any]:
        """The statement's parameters: these rows, applied only at ``version``."""
        return {"ns": ns, "expected": version, "seq": version + 1, "now": now,
                **self.rows()}

    def rows(self) -> dict[str, Any]:
        """The parameters besides the guard: the fields, as planned."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def parameter_names(cls) -> set[str]:
        return {*GUARD_PARAMS, *(f.name for f in fields(cls))}


@dataclass(frozen=True)
class DepositRows(_Rows):
    """What ``cypher/memory/apply_deposit`` writes for one deposit."""

    agents: list[str]            # every party, created if unknown
    deposit: Row                 # the Deposit node
    new: list[Row]               # {id, embedding, props}: memories created
    updates: list[Row]           # {id, text, variants, asserted_by}: memories merged into
    touch: list[str]             # existing memories whose links changed (re-read by views)
    produced: list[Row]          # {memory, atom, action}: PRODUCED edges
    owns: list[Row]              # {agent, memory, since, via, from}: OWNS edges
    links: list[list[str]]       # AFFILIATED pairs
    contradicts: list[list[str]]  # CONTRADICTS pairs
    supersede: list[Row]         # {id, valid_until, by}: a claim replaced by a later one
    entities: list[Row]          # {id, name, type, aliases}
    mentions: list[list[str]]    # [memory, entity]: MENTIONS edges
    arcs: list[Row]              # {arc, entity, memory, t}: StoryArc membership
    arc_cuts: list[Row]          # {arc, a, b}: NEXT edges to remove
    arc_adds: list[Row]          # {arc, a, b}: NEXT edges to add
    oplog: list[Row]             # {id, op, agent, memory, payload, pos}: the event log
    #: {id, confidence, quarantined, asserted_from, domain}: graphmem.trust.ledger
    confidence: list[Row] = field(default_factory=list)
    actor: list[Row] = field(default_factory=list)  # the depositor's trust counters

    #: the rows sent as they are planned; ``new`` goes with every later property of
    #: its memories, and ``changes`` carries those of the memories that exist
    PASSED = ("agents", "deposit", "produced", "owns", "links", "contradicts", "entities",
              "mentions", "arcs", "arc_cuts", "arc_adds", "oplog", "actor")
    #: the rows ``memory_writes`` folds into ``new`` and ``changes``
    FOLDED = ("new", "updates", "touch", "supersede", "confidence")

    def rows(self) -> dict[str, Any]:
        new, changes = self.memory_writes()
        return {**{name: getattr(self, name) for name in self.PASSED},
                "new": new, "changes": changes}

    @classmethod
    def parameter_names(cls) -> set[str]:
        return {*GUARD_PARAMS, *cls.PASSED, "new", "changes"}

    def memory_writes(self) -> tuple[list[Row], list[Row]]:
        """The deposit's memory properties, one write per memory: each new memory
        ({id, embedding, props}) with every property the deposit gives it, and each
        existing one it changes ({id, props}: merged wording, supersession, confidence;
        empty for one whose links changed, which the statement marks as changed
        anyway). Later rows win, in the order merges, supersessions, confidences."""
        later: dict[str, Row] = {}
        for u in self.updates:
            later.setdefault(u["id"], {}).update(
                text=u["text"], variants=u["variants"], asserted_by=u["asserted_by"],
                **({} if u.get("claims") is None else {"claims": u["claims"]}))
        for mid in self.touch:
            later.setdefault(mid, {})
        for s in self.supersede:
            later.setdefault(s["id"], {}).update(valid_until=s["valid_until"],
                                                 superseded_by=s.get("by"))
        for c in self.confidence:
            later.setdefault(c["id"], {}).update(
                confidence=c["confidence"], quarantined=c["quarantined"],
                asserted_from=c["asserted_from"], domain=c["domain"])
        new = []
        for m in self.new:
            props = {**m["props"], **later.pop(m["id"], {})}
            unknown = props.keys() - _CREATABLE
            if unknown:  # the statement would drop them: name them where it creates one
                raise ValueError(f"memory properties {sorted(unknown)} are not among "
                                 "statements.CREATED_MEMORY_PROPERTIES and the CREATE of "
                                 "cypher/memory/apply_deposit")
            new.append({"id": m["id"], "embedding": m["embedding"], "props": props})
        return new, [{"id": mid, "props": props} for mid, props in later.items()]


#: what a memory may be created with besides ns, id, seq, vseq and its embedding: the
#: CREATE of ``cypher/memory/apply_deposit`` names each (a node is created whole, not
#: created and then set)
CREATED_MEMORY_PROPERTIES = (
    "text", "variants", "asserted_by", "pos", "kind", "t", "t_end", "t_granularity",
    "t_expression", "recorded_at", "salience", "salience_tags", "place", "domain",
    "context", "claims", "forgotten", "pinned", "valid_until", "superseded_by",
    "confidence", "quarantined", "asserted_from")
_CREATABLE = frozenset(CREATED_MEMORY_PROPERTIES)


@dataclass(frozen=True)
class UnmergeRows(_Rows):
    """What ``cypher/memory/unmerge`` writes to undo one merge."""

    memory: str                  # the memory merged into
    restored: str                # id of the memory the undone atom becomes again
    atom: str                    # the undone atom's text
    embedding: list[float]
    deposit: str                 # the deposit that made the merge
    op: str                      # the merge's log entry
    unmerge_op: str              # the new log entry
    text: str                    # the merged memory's canonical text without the atom
    variants: list[str]
    asserted_by: list[str]
    restored_asserted_by: list[str]
    moves: list[Row]             # {agent, since, via, from}: owners that move over
    drop: list[str]              # owners the merge added, dropped from the memory
    siblings: list[str]          # the deposit's other atoms, to relink

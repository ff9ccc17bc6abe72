"""The parameters of the guarded write statements, as typed objects.

A plan (``consensus.plan_deposit``, ``Writer.unmerge``) decides the rows; applying adds
the version guard (``ns``, ``expected``, ``seq``, ``now``). ``tests/test_statements.py``
checks that every field here is a parameter of the query file and the reverse, for every
backend's variant, so a renamed parameter cannot pass silently as null.
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
                **{f.name: getattr(self, f.name) for f in fields(self)}}

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

"""The write path: a deposit becomes atoms, each merged into an equivalent memory or
created, and everything is applied in one guarded statement.

Planning is pure (``plan_deposit``: atoms, vectors and the namespace view in, the rows
to write out); applying is one statement (``cypher/memory/apply_deposit``) guarded by
the namespace version. A writer whose view was behind writes nothing, catches up and
plans again, so two processes depositing equivalent statements at once end with one
record that both own.
"""

from __future__ import annotations

import json
import uuid
from bisect import bisect_left, insort
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from graphmem.judge import DepositContext
from graphmem.models import AtomOutcome, Deposit, to_epoch_ms
from graphmem.retrieval.bm25 import BM25Index
from graphmem.statements import DepositRows
from graphmem.supersession.detector import SupersessionDetector
from graphmem.view import NamespaceView, arc_key
from graphmem.write_config import DEFAULT_WRITE, WriteConfig


#: judge(atom, memory_text, similarity, context_a=, context_b=) -> a verdict with ``kind``
#: ("equivalent", "contradiction" or "different") and ``reason`` (graphmem.judge.Verdict);
#: the contexts are the atom's and the memory's DepositContext (place, world time).
Judge = Callable[..., Any]
Canonicaliser = Callable[[Sequence[str]], str]


@dataclass
class _Pending:
    """A memory as this deposit will leave it (new, or an existing one merged into)."""

    id: str
    text: str
    variants: list[str]
    asserted_by: list[str]
    vector: np.ndarray
    is_new: bool
    t: int | None = None
    span: dict | None = None
    mentions: dict = field(default_factory=dict)  # entity id -> Mention
    salience: Any = None  # graphmem.salience.Salience of a new memory, when tagged
    claims: str | None = None  # what its wordings claim (graphmem.supersession.stored)


@dataclass
class Plan:
    """Everything one deposit writes (the statement's rows) plus the outcomes."""

    deposit_id: str
    outcomes: list[AtomOutcome] = field(default_factory=list)
    rows: DepositRows | None = None


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:20]}"


def deposit_ids(prefix: str) -> Iterator[str]:
    """New ids for one deposit's memories that ascend in the order they are handed out
    (a random stem, then a count): where the deposit's statements tie on a timeline
    (one time, one moment of recording), `view.arc_key` orders them by id, which is then
    the order they were written in."""
    stem = uuid.uuid4().hex[:18]
    return (f"{prefix}-{stem}{n:06x}" for n in count())


def plan_deposit(deposit: Deposit, atoms: Sequence[str], vectors: np.ndarray,
                 view: NamespaceView, *, judge: Judge, canonical: Canonicaliser,
                 meanings: Sequence[Any] | None = None,
                 now_ms: int, config: WriteConfig = DEFAULT_WRITE, merge: bool = True,
                 link: bool = True,
                 salience: Callable[..., Any] | None = None,
                 supersession: SupersessionDetector | None = None,
                 words: BM25Index | None = None) -> Plan:
    """Decide, for each atom, whether it merges into a memory or becomes a new one.

    ``merge=False`` and ``link=False`` give the designs the papers compare against:
    every atom becomes its own record, and atoms are not linked. With ``supersession``
    the detector decides which claims a statement replaces (graphmem.supersession),
    finding the memories it has not read through ``words`` (the BM25 index of the view's
    wordings, required with it); without it, the judge's contradictions do.
    """
    if supersession is not None and words is None:
        raise ValueError("the supersession detector needs the BM25 index of the wordings")
    plan = Plan(deposit_id=new_id("d"))
    memory_ids = deposit_ids("m")
    pending: dict[str, _Pending] = {}
    contradicts: list[list[str]] = []
    supersede: list[dict] = []
    oplog: list[dict] = []
    deposit_t = to_epoch_ms(deposit.at) if deposit.at else now_ms
    meanings = meanings or [None] * len(atoms)
    for atom, vector, meaning in zip(atoms, vectors, meanings):
        context = _atom_context(deposit, meaning, deposit_t)
        target, similarity, conflicts, reason = (
            _match_atom(atom, vector, view, pending, judge, config, context) if merge
            else (None, 0.0, [], ""))
        if target is None:
            mid = next(memory_ids)
            pending[mid] = _Pending(mid, atom, [atom], [deposit.agent], vector, True,
                                    **_when(meaning, deposit_t))
            if salience is not None:
                pending[mid].salience = salience(atom, nearest_similarity=similarity)
            _add_mentions(pending[mid], meaning)
            plan.outcomes.append(AtomOutcome(text=atom, memory_id=mid, action="created",
                                             contradicts=conflicts, reason=reason))
        else:
            merged = pending.get(target) or _pending_from_view(view, target)
            before = {"text": merged.text, "variants": list(merged.variants),
                      "asserted_by": list(merged.asserted_by)}
            if atom not in merged.variants:
                merged.variants.append(atom)
            if deposit.agent not in merged.asserted_by:
                merged.asserted_by.append(deposit.agent)
            merged.text = canonical(merged.variants)
            _add_mentions(merged, meaning)
            pending[target] = merged
            mid = target
            plan.outcomes.append(AtomOutcome(text=atom, memory_id=mid, action="merged",
                                             similarity=round(similarity, 4),
                                             contradicts=conflicts, reason=reason))
            if not merged.is_new:
                oplog.append(_merge_entry(deposit, plan.deposit_id, atom, mid, before, view))
        contradicts.extend([mid, other] for other in conflicts)
        supersede.extend(_supersession(mid, conflicts, pending, view, deposit_t)
                         if supersession is None else
                         _detected(supersession, atom, mid, pending, view, deposit_t,
                                   words))
        oplog.extend({"id": new_id("op"), "op": "contradiction", "agent": deposit.agent,
                      "memory": mid, "payload": json.dumps({"with": other})}
                     for other in conflicts)
    if supersession is not None:  # kept with the memory: a new process need not parse it
        for item in pending.values():
            item.claims = supersession.kept(item.variants, view.records.get(item.id))
    plan.rows = _statement_rows(deposit, plan, pending, contradicts, supersede, oplog, view,
                                now_ms, link=link, episode_gap_ms=config.episode_gap_ms)
    return plan


def _atom_context(deposit: Deposit, meaning: Any, deposit_t: int) -> DepositContext:
    """Where and when the atom's event happened. The time counts only when the depositor
    gave one (``at``): a deposit's clock time says nothing about the event."""
    at = _when(meaning, deposit_t)["t"] / 1000 if deposit.at else None
    return DepositContext(at=at, place=deposit.place)


def _memory_context(mid: str, view: NamespaceView, pending: dict[str, _Pending],
                    atom: DepositContext) -> DepositContext:
    """The memory's place and world time (the time only if the atom has one to compare)."""
    record = view.records.get(mid)
    t, place = (record.t, record.place) if record else (pending[mid].t, atom.place)
    return DepositContext(at=t / 1000 if atom.at is not None and t is not None else None,
                          place=place)


def _match_atom(atom: str, vector: np.ndarray, view: NamespaceView,
                pending: dict[str, _Pending], judge: Judge,
                config: WriteConfig,
                context: DepositContext) -> tuple[str | None, float, list[str], str]:
    """The memory ``atom`` is equivalent to (or None), its similarity, contradictions."""
    scored = dict(view.nearest(vector, config.candidates))
    for mid, item in pending.items():  # atoms earlier in this same deposit
        scored[mid] = float(item.vector @ vector)
    conflicts: list[str] = []
    why_not = nearest = ""
    for mid, similarity in sorted(scored.items(), key=lambda kv: -kv[1]):
        wordings = pending[mid].variants if mid in pending else view.records[mid].variants
        # Judge against what was deposited, not the canonical text: the canonical text
        # may carry "(also: ...)" names that no single wording has.
        theirs = _memory_context(mid, view, pending, context)
        verdicts = [judge(atom, text, similarity, context_a=context, context_b=theirs)
                    for text in wordings[-config.wordings_judged:]]
        equivalent = next((v for v in verdicts if v.kind == "equivalent"), None)
        if equivalent is not None:
            return mid, similarity, conflicts, equivalent.reason
        contradiction = next((v for v in verdicts if v.kind == "contradiction"), None)
        if contradiction is not None:
            conflicts.append(mid)
            why_not = why_not or contradiction.reason
        nearest = nearest or (verdicts[0].reason if verdicts else "")
    # created: the nearest memory's similarity (how novel the statement is), and why
    # it became a new memory: a conflict, else the nearest memory's verdict
    return None, max(scored.values(), default=0.0), conflicts, why_not or nearest


def _supersession(mid: str, conflicts: list[str], pending: dict[str, _Pending],
                  view: NamespaceView, stated: int) -> list[dict]:
    """Of two claims in conflict, the one that holds from a later time supersedes the
    other: the earlier is valid until the later's time. Claims of the same time stay
    side by side, disputed. An atom merged into a memory re-asserts it at ``stated``
    (the deposit's time): replaced before then, the memory holds again and replaces
    what replaced it ("the launch is back on March 3"). Rows: {id, valid_until, by}
    (None, None: current again)."""
    def t_of(memory: str) -> int | None:
        return pending[memory].t if memory in pending else view.records[memory].t

    if not pending[mid].is_new:  # re-asserted: it replaces the current claims before it
        return _reasserted(mid, view, stated) + [
            {"id": other, "valid_until": stated, "by": mid} for other in conflicts
            if other in view.records and view.records[other].valid_until is None
            and (t_of(other) or stated) < stated]
    rows = []
    for other in conflicts:
        mine, theirs = t_of(mid), t_of(other)
        if mine is None or theirs is None or mine == theirs:
            continue
        earlier, later, t = (other, mid, mine) if mine > theirs else (mid, other, theirs)
        rows.append({"id": earlier, "valid_until": t, "by": later})
    return rows


def _detected(detector: SupersessionDetector, atom: str, mid: str,
              pending: dict[str, _Pending], view: NamespaceView, stated: int,
              words: BM25Index | None) -> list[dict]:
    """The claims the atom replaces, found by the detector (a re-asserted memory holds
    again first: see ``_supersession``)."""
    detector.note(view, mid, stated)
    rows = [] if pending[mid].is_new else _reasserted(mid, view, stated)
    assert words is not None  # plan_deposit checked it
    found = detector.replaced(atom, mid, view, stated=stated, words=words, exclude=pending)
    return rows + [r.row() for r in found]


def _reasserted(mid: str, view: NamespaceView, stated: int) -> list[dict]:
    record = view.records.get(mid)
    if record is None or record.valid_until is None or record.valid_until > stated:
        return []
    rows: list[dict[str, Any]] = [{"id": mid, "valid_until": None, "by": None}]
    later = view.records.get(record.superseded_by or "")
    if later is not None and later.valid_until is None:
        rows.append({"id": later.id, "valid_until": stated, "by": mid})
    return rows


def _when(meaning: Any, deposit_t: int) -> dict:
    """World time of a new memory: the time its text names, else the deposit's."""
    span = getattr(meaning, "span", None)
    if span is None:
        return {"t": deposit_t, "span": None}
    start, end = to_epoch_ms(span.start), to_epoch_ms(span.end)
    return {"t": start, "span": {"t_end": end, "t_granularity": span.granularity,
                                 "t_expression": span.expression}}


def _add_mentions(item: _Pending, meaning: Any) -> None:
    for mention in getattr(meaning, "mentions", ()):
        item.mentions.setdefault(mention.id, mention)


def _pending_from_view(view: NamespaceView, mid: str) -> _Pending:
    record = view.records[mid]
    return _Pending(mid, record.text, list(record.variants), list(record.asserted_by),
                    view.vector(mid), False)


def _merge_entry(deposit: Deposit, deposit_id: str, atom: str, mid: str, before: dict,
                 view: NamespaceView) -> dict:
    """The log entry that lets ``unmerge`` restore the memory as it was."""
    prior_owners = sorted(view.records[mid].owners) if mid in view.records else []
    payload = {"deposit": deposit_id, "atom": atom, "before": before,
               "prior_owners": prior_owners}
    return {"id": new_id("op"), "op": "merge", "agent": deposit.agent, "memory": mid,
            "payload": json.dumps(payload)}


def _episode_predecessor(deposit: Deposit, t: int, view: NamespaceView,
                         exclude: set[str], gap_ms: int) -> str | None:
    """The depositor's previous memory in the same episode (same place, close in time)."""
    if not deposit.place:
        return None
    latest = view.latest_at_place(deposit.agent, deposit.place)
    if latest is None or latest[1] in exclude or abs(t - latest[0]) > gap_ms:
        return None
    return latest[1]


def _entity_params(pending: dict[str, _Pending], view: NamespaceView, now_ms: int) -> dict:
    """Entities, MENTIONS edges, and each new memory spliced into its entities' arcs."""
    entities, mentions, arcs, cuts = {}, [], [], []
    adds: dict[tuple[str, str, str], None] = {}  # (arc, a, b), in the order made
    for item in pending.values():
        for entity_id, mention in item.mentions.items():
            entities[entity_id] = {"id": entity_id, "name": mention.name, "type": mention.type,
                                   "aliases": list(view.aliases_of(entity_id))}
            if entity_id not in view.mentions_of(item.id):
                mentions.append([item.id, entity_id])
    # the deposit's own new memories on each arc: the view's arcs are not copied (a
    # name's arc holds tens of thousands of memories at a million)
    joined: dict[str, list[tuple[int, int, str]]] = {}
    for item in (p for p in pending.values() if p.is_new):
        if item.t is None:  # every new memory has a time: the text's, else the deposit's
            continue
        for entity_id in item.mentions:
            ours = joined.setdefault(entity_id, [])
            key = arc_key(item.t, now_ms, item.id)
            before, after = neighbours_in_time((view.arc(entity_id), ours), key)
            arc_id = f"arc:{entity_id}"
            arcs.append({"arc": arc_id, "entity": entity_id, "memory": item.id, "t": item.t})
            if before and after:
                # the statement cuts before it adds: an edge this deposit made is
                # not added, one stored is cut
                if (arc_id, before, after) in adds:
                    del adds[(arc_id, before, after)]
                else:
                    cuts.append({"arc": arc_id, "a": before, "b": after})
            if before:
                adds[(arc_id, before, item.id)] = None
            if after:
                adds[(arc_id, item.id, after)] = None
            insort(ours, key)
    return {"entities": list(entities.values()), "mentions": mentions, "arcs": arcs,
            "arc_cuts": cuts, "arc_adds": [{"arc": arc, "a": a, "b": b}
                                           for arc, a, b in adds]}


def neighbours_in_time(arcs: Iterable[list[tuple[int, int, str]]],
                       key: tuple[int, int, str]) -> tuple[str | None, str | None]:
    """The memories just before and just after ``key`` (`view.arc_key`) on the arc that
    is the union of ``arcs`` (each in that order)."""
    befores, afters = [], []
    for arc in arcs:
        i = bisect_left(arc, key)
        if i > 0:
            befores.append(arc[i - 1])
        if i < len(arc):
            afters.append(arc[i])
    return (max(befores)[-1] if befores else None), (min(afters)[-1] if afters else None)


def _statement_rows(deposit: Deposit, plan: Plan, pending: dict[str, _Pending],
                    contradicts: list[list[str]], supersede: list[dict], oplog: list[dict],
                    view: NamespaceView, now_ms: int, *, link: bool,
                    episode_gap_ms: int) -> DepositRows:
    t = to_epoch_ms(deposit.at) if deposit.at else now_ms
    parties = [deposit.agent, *deposit.witnesses]
    if deposit.told_by:
        parties.append(deposit.told_by)
    atom_ids = list(dict.fromkeys(o.memory_id for o in plan.outcomes))
    owns = []
    for mid in atom_ids:
        owns.append({"agent": deposit.agent, "memory": mid, "since": t,
                     "via": deposit.depositor_via, "from": deposit.told_by})
        owns.extend({"agent": w, "memory": mid, "since": t, "via": "witnessed",
                     "from": None} for w in deposit.witnesses)
    links = []
    if link:
        links = [sorted(pair) for i, a in enumerate(atom_ids) for pair in
                 ((a, b) for b in atom_ids[i + 1:])]
        previous = _episode_predecessor(deposit, t, view, set(atom_ids), episode_gap_ms)
        if previous is not None:
            links.extend(sorted((previous, mid)) for mid in atom_ids[:1])
    touched = {m for pair in contradicts for m in pair} | {m for pair in links for m in pair}
    new = [p for p in pending.values() if p.is_new]
    return DepositRows(**{
        "agents": list(dict.fromkeys(parties)),
        "deposit": {"id": plan.deposit_id, "agent": deposit.agent, "text": deposit.text,
                    "t": t, "recorded_at": now_ms, "place": deposit.place,
                    "domain": deposit.domain, "witnesses": list(deposit.witnesses),
                    "told_by": deposit.told_by, "context": deposit.context or None},
        # pos: the memory's place among the deposit's new ones, so that every reader
        # stores them in the order they were written
        "new": [{"id": p.id, "embedding": [float(x) for x in p.vector],
                 "props": {"text": p.text, "variants": p.variants, "asserted_by": p.asserted_by,
                           "pos": pos,
                           "kind": deposit.kind, "t": p.t, "recorded_at": now_ms,
                           **({"salience": p.salience.score,
                               "salience_tags": list(p.salience.tags)} if p.salience else {}),
                           "place": deposit.place, "domain": deposit.domain,
                           "context": deposit.context or None, "claims": p.claims,
                           "forgotten": False, "pinned": False, **(p.span or {})}}
                for pos, p in enumerate(new)],
        **_entity_params(pending, view, now_ms),
        "updates": [{"id": p.id, "text": p.text, "variants": p.variants,
                     "asserted_by": p.asserted_by, "claims": p.claims}
                    for p in pending.values() if not p.is_new],
        "touch": sorted(m for m in touched if m in view.records
                        and not (m in pending and not pending[m].is_new)),
        "produced": [{"memory": o.memory_id, "atom": o.text, "action": o.action}
                     for o in plan.outcomes],
        "owns": owns,
        "links": links,
        "contradicts": contradicts,
        "supersede": supersede,
        "oplog": oplog,
    })

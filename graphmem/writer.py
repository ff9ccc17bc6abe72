"""Applies deposits to the store: validation, namespaces, retries on a moved version,
and ``unmerge``. Planning lives in :mod:`graphmem.consensus`."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from datetime import datetime
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from graphmem.canonical import canonical_text
from graphmem.consensus import Canonicaliser, Judge, Plan, new_id, plan_deposit
from graphmem.designs import CONSENSUS, Design
from graphmem.errors import InvalidInput, QueryFailed
from graphmem.models import AGENT_KINDS, Deposit, RememberResult, validate_deposit
from graphmem.retry import retry_moved_version
from graphmem.salience import SalienceTagger
from graphmem.statements import UnmergeRows
from graphmem.supersession.detector import SupersessionDetector
from graphmem.text.annotate import AtomMeaning, annotate_atoms
from graphmem.text.nlp import Parser
from graphmem.text.times import parse_when
from graphmem.trust.gate import Admission
from graphmem.trust.ledger import DepositTrust
from graphmem.trust.policy import parse_policy
from graphmem.view import NamespaceView
from graphmem.views import NamespaceState, Views, now_ms
from graphmem.write_config import DEFAULT_WRITE, WriteConfig


class Writer:
    """The write path of one MemoryGraph."""

    def __init__(self, views: Views, *, embed: Callable[[Sequence[str]], np.ndarray],
                 atomise: Callable[..., list[str]], judge: Judge,
                 parser: Parser, design: Design = CONSENSUS,
                 config: WriteConfig = DEFAULT_WRITE, trust: DepositTrust | None = None,
                 clock: Callable[[], int] = now_ms, grammar: Parser | None = None) -> None:
        """``parser`` reads entities (no dependency parse) when no claims are read (and
        then the parties of a merged memory's wordings);
        ``grammar``, the full parser the judge reads statements with, if the detector may
        share it (the entity pass then reads the detector's parses). (The statement's
        own words are not parsed ahead for the judge: it reads a copy with placeholder
        names, and the raw parse cost every statement 10 ms at a million memories.)"""
        self.views = views
        self.store = views.store
        self.queries = views.queries
        self._embed = embed
        # a statement is embedded on this thread while the calling one parses it: the
        # model and the parser each hold one of the cores, and neither waits
        self._embedding = ThreadPoolExecutor(max_workers=1,
                                             thread_name_prefix="graphmem-embed")
        self._atomise = atomise
        self._judge = judge
        self._parser = parser
        self._salience = SalienceTagger()
        self._supersession = SupersessionDetector(parser=grammar) if config.supersession \
            else None
        #: a merged memory's one wording, its parties read from the parses the entity pass
        #: made (the statement is not parsed again, and one pipeline is loaded, not two)
        self._canonical: Canonicaliser = partial(canonical_text, parser=self._entity_parser)
        self._names: dict[str, dict[str, str]] = {}  # ns -> agent -> name, as read
        #: ns -> (epoch, named) of the namespace when its names kept here were read
        self._named: dict[str, tuple[str | None, int | None]] = {}
        self.design = design
        self.config = config
        self.trust = trust
        #: epoch ms of "now" for what the write path records (recorded_at, log times)
        self.clock = clock

    @staticmethod
    def check_kind(kind: str | None) -> None:
        if kind is not None and kind not in AGENT_KINDS:
            raise InvalidInput(f"unknown agent kind {kind!r}; choose one of "
                               f"{', '.join(AGENT_KINDS)}")

    def register_agent(self, ns: str, agent: str, *, kind: str | None = None,
                       name: str | None = None) -> dict:
        self.check_kind(kind)
        self.views.ensure_namespace(ns)
        if not agent:
            raise InvalidInput("agent id is empty")
        rows = self.store.write(self.queries["memory/register_agent"],
                                {"ns": ns, "id": agent, "kind": kind, "name": name,
                                 "now": self.clock()})
        if not rows:
            raise QueryFailed(f"namespace {ns!r} was dropped while agent {agent!r} was being "
                              "registered; nothing was written: register the agent again")
        if name:
            self._names.setdefault(ns, {})[agent] = name
        return rows[0]

    def prepare(self, deposits: list[dict]) -> None:
        """Embed and parse the statements of many deposits in one batch each: the writer's
        embedder and parser keep them for the deposits' own ``remember``."""
        atoms = []
        for d in deposits:
            try:
                deposit = validate_deposit(**{**d, "at": None})
            except InvalidInput:
                continue  # remember() reports it, in order
            atoms.extend(self._atomise(deposit.text, speaker=self._speaker_name(deposit)))
        self._embed(atoms)
        if self.config.annotate:
            self._parse_ahead(atoms)

    def remember(self, *, signature: str | None = None, op: dict | None = None,
                 **fields: Any) -> RememberResult:
        """Deposit ``fields``; with trust on, ``op`` is the operation as signed and
        ``signature`` its signature (checked where the namespace requires them)."""
        deposit = validate_deposit(**fields)
        trust = self.trust
        # with trust, the namespace's state and the agent's trust state in one round trip
        # (the agent's is read again at admission where the namespace had to be made)
        stored, agent = trust.gate.read(deposit.ns, deposit.agent) if trust is not None \
            else (None, None)
        state = stored or self.views.ensure_namespace(deposit.ns)
        self.names_as_of(deposit.ns, stored)
        if stored is not None and agent is not None:
            # the name as registered now (another process may have named the agent
            # since this one first read it), read with the state at no cost
            self._names.setdefault(deposit.ns, {})[deposit.agent] = agent.name or deposit.agent
        if state.strict:
            self._check_known(deposit)
        atoms = self._atomise(deposit.text, speaker=self._speaker_name(deposit))
        if not atoms:
            raise InvalidInput("the deposit has no statement to remember after atomising")
        admit = None
        if trust is not None:  # refused before anything is embedded or planned
            first = trust.admit(deposit, len(atoms), op=op, signature=signature,
                                policy=parse_policy(state.trust_policy),
                                agent=agent if stored else None)
            readmit = lambda: trust.admit(deposit, len(atoms), op=op,  # noqa: E731
                                          signature=signature)
            admit = _first_then(first, readmit)
        if self.design.private_copies and deposit.witnesses:
            return self._remember_private_copies(deposit, admit, state)
        return self._remember(deposit, atoms, admit, state)

    def _remember_private_copies(self, deposit: Deposit, admit: Callable[[], Admission] | None,
                                 state: NamespaceState) -> RememberResult:
        """One record per party present, each owned by that party alone."""
        copies = [deposit.model_copy(update={"agent": party, "witnesses": ()})
                  for party in (deposit.agent, *deposit.witnesses)]
        results = [self._remember(copy, self._atomise(copy.text,
                                                      speaker=self._speaker_name(copy)),
                                  admit, state) for copy in copies]
        first = results[0]
        atoms = [atom for result in results for atom in result.atoms]
        return RememberResult(deposit_id=first.deposit_id, ns=first.ns, atoms=atoms,
                              attempts=max(r.attempts for r in results))

    def _remember(self, deposit: Deposit, atoms: list[str],
                  admit: Callable[[], Admission] | None,
                  state: NamespaceState) -> RememberResult:
        """Plan and apply on the view caught up with ``state`` (the namespace as the
        deposit found it; a view already past it, after an earlier copy's write, stays
        where it is). Each attempt re-reads the agent's trust state (``admit``), so a
        retry after another writer moved the namespace counts what that writer did."""
        embedding = self._embedding.submit(self._embed, atoms)
        view = self.views.synced(deposit.ns, state=state)
        meanings = None
        if self.config.annotate:
            self._parse_ahead(atoms)
            meanings = self._annotate(atoms, deposit, view)
        if self._supersession is not None:
            self._supersession.claims(atoms)  # read now: the plan asks for them
        vectors = embedding.result()

        def attempt(n: int) -> RememberResult | None:
            current = view
            if n > 1:  # another writer moved (or dropped) the namespace: catch up, plan again
                self.views.ensure_namespace(deposit.ns)
                current = self.views.synced(deposit.ns)
            # the version the plan is made at, read before it: a view that another thread
            # catches up meanwhile makes the guarded write fail and the deposit plan again
            version = current.version
            plan = plan_deposit(deposit, atoms, vectors, current, judge=self._judge,
                                canonical=self._canonical, now_ms=self.clock(), meanings=meanings,
                                config=self.config, merge=self.design.merge,
                                link=self.design.link,
                                salience=self._salience if self.config.salience else None,
                                supersession=self._supersession,
                                words=self.views.text_index(deposit.ns).words
                                if self._supersession is not None else None)
            if self.trust is not None and admit is not None:
                plan = self.trust.weigh(plan, deposit, admit(), current, meanings)
            if not self._apply(deposit.ns, version, plan):
                return None
            self.views.synced(deposit.ns, version + 1, note=True)
            return RememberResult(deposit_id=plan.deposit_id, ns=deposit.ns,
                                  atoms=plan.outcomes, attempts=n)

        return retry_moved_version(attempt, attempts=self.config.max_attempts,
                                   backoff_ms=self.config.backoff_ms, what="the deposit")

    def _annotate(self, atoms: list[str], deposit: Deposit,
                  view: NamespaceView) -> list[AtomMeaning]:
        speaker = self._speaker_name(deposit)
        people = [speaker, *self.agent_names(deposit.ns, deposit.witnesses).values()]
        return annotate_atoms(atoms, speaker=speaker, reference=deposit.at,
                              resolver=view.resolver, known_people=people,
                              parser=self._entity_parser)

    def _apply(self, ns: str, version: int, plan: Plan) -> bool:
        assert plan.rows is not None
        params = plan.rows.guarded(ns, version, self.clock())
        return bool(self.store.write(self.queries["memory/apply_deposit"], params))

    def _check_known(self, deposit: Deposit) -> None:
        parties = [deposit.agent, *deposit.witnesses] + ([deposit.told_by] if deposit.told_by else [])
        rows = self.store.read(self.queries["memory/known_agents"],
                               {"ns": deposit.ns, "ids": parties})
        unknown = sorted(set(parties) - {r["id"] for r in rows})
        if unknown:
            raise InvalidInput(
                f"namespace {deposit.ns!r} is strict and does not know agent(s) "
                f"{', '.join(unknown)}; register them first with register_agent()")

    def _speaker_name(self, deposit: Deposit) -> str:
        return self.agent_name(deposit.ns, deposit.agent)

    def _parse_ahead(self, atoms: list[str]) -> None:
        """Parse the statements for the entity pass: with the detector, in one batch with
        the copies it reads (`SupersessionDetector.parse_ahead`)."""
        if self._supersession is None:
            self._parser.parse_many(atoms)
        else:
            self._supersession.parse_ahead(atoms)

    @property
    def _entity_parser(self) -> Parser:
        """The parser that has parsed the statements (`_parse_ahead`)."""
        return self._parser if self._supersession is None else self._supersession.parser

    @property
    def supersession(self) -> SupersessionDetector | None:
        """The detector that reads (and keeps) each statement's claims; None when the
        write config turns supersession off."""
        return self._supersession

    def names_as_of(self, ns: str, state: NamespaceState | None) -> None:
        """Forget the names kept of ``ns``'s agents if an agent was registered (by any
        process) since they were read, or the namespace was made again: ``state`` is the
        namespace as the caller has just read it."""
        if state is None:
            return
        stamp = (state.epoch, state.named)
        if self._named.get(ns) != stamp:
            self._names.pop(ns, None)
            self._named[ns] = stamp

    def agent_name(self, ns: str, agent: str) -> str:
        """The name ``agent`` was registered with in ``ns`` (its id if none)."""
        return self.agent_names(ns, [agent])[agent]

    def agent_names(self, ns: str, agents: Iterable[str]) -> dict[str, str]:
        """Each of ``agents`` by the name it was registered with in ``ns`` (its id if
        none); those not kept are read in one round trip and kept."""
        names = self._names.setdefault(ns, {})
        wanted = list(dict.fromkeys(agents))
        unknown = [a for a in wanted if a not in names]
        if unknown:
            found = {r["id"]: r["name"] for r in self.store.read(
                self.queries["memory/agent_names"], {"ns": ns, "ids": unknown})}
            names.update({a: found.get(a) or a for a in unknown})
        return {a: names[a] for a in wanted}

    # -- unmerge ------------------------------------------------------------------

    def unmerge(self, ns: str, memory_id: str, *, op_id: str | None = None) -> str:
        """Undo the latest (or the given) merge into ``memory_id``; return the restored id."""
        rows_all = self.store.read(self.queries["memory/merge_ops"],
                                   {"ns": ns, "memory": memory_id})
        rows = [r for r in rows_all if op_id is None or r["id"] == op_id]
        if not rows:
            raise InvalidInput(f"no merge into memory {memory_id!r} in namespace {ns!r} "
                               "is left to undo")
        op = rows[0]
        payload = json.loads(op["payload"])
        deposit = payload["deposit"]
        parties = self.store.read(self.queries["memory/deposit_parties"],
                                  {"ns": ns, "deposit": deposit, "memory": memory_id})
        siblings = [r["id"] for r in self.store.read(self.queries["memory/deposit_atoms"],
                                                     {"ns": ns, "deposit": deposit})
                    if r["id"] != memory_id]
        vector = self._embed([payload["atom"]])[0]
        restored = new_id("m")

        def attempt(n: int) -> str | None:
            view = self.views.synced(ns)
            version = view.version  # read before planning (see `_remember`)
            # owners after the undo: the parties of every deposit still standing behind
            # it, read again by each attempt (another writer may have merged meanwhile)
            merges = rows_all if n == 1 else self.store.read(
                self.queries["memory/merge_ops"], {"ns": ns, "memory": memory_id})
            if all(r["id"] != op["id"] for r in merges):
                raise InvalidInput(f"the merge {op['id']!r} into memory {memory_id!r} was "
                                   "undone by another writer meanwhile; nothing is left to undo")
            live = [json.loads(r["payload"])["deposit"] for r in merges if r["id"] != op["id"]]
            sources = self.store.read(self.queries["memory/ownership_sources"],
                                      {"ns": ns, "memory": memory_id, "merged": live})
            keep = {a for s in sources for a in [s["agent"], *(s["witnesses"] or [])]}
            if not keep:  # a store older than deposit records: the owners before the merge
                keep = set(payload["prior_owners"])
            record = view.records[memory_id]
            before = payload["before"]
            remaining = [v for v in record.variants
                         if v != payload["atom"] or v in before["variants"]]
            rows = UnmergeRows(
                memory=memory_id, restored=restored, atom=payload["atom"],
                embedding=[float(x) for x in vector], deposit=deposit, op=op["id"],
                unmerge_op=new_id("op"), text=self._canonical(remaining), variants=remaining,
                asserted_by=[a for a in record.asserted_by
                             if a != op["agent"] or a in before["asserted_by"]],
                restored_asserted_by=[op["agent"]],
                moves=[{k: p[k] for k in ("agent", "since", "via", "from")} for p in parties],
                drop=sorted(set(record.owners) - keep),
                siblings=siblings)
            if not self.store.write(self.queries["memory/unmerge"],
                                    rows.guarded(ns, version, self.clock())):
                return None
            self.views.synced(ns, version + 1, note=True)
            return restored

        return retry_moved_version(attempt, attempts=self.config.max_attempts,
                                   backoff_ms=self.config.backoff_ms, what="the unmerge")


def _first_then(first: Admission, again: Callable[[], Admission]) -> Callable[[], Admission]:
    """``first`` on the first call, ``again()`` on every later one (a retried attempt
    re-reads what other writers changed)."""
    calls = iter([first])
    return lambda: next(calls, None) or again()


def parse_at(value: Any) -> datetime | None:
    """Accept a datetime, an ISO string, a date text or epoch milliseconds for ``at``."""
    if value is None or isinstance(value, datetime):
        return value
    try:
        return parse_when(value)
    except InvalidInput as exc:
        raise InvalidInput(f"invalid time for 'at': {exc}") from None

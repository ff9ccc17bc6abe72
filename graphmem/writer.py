"""Applies deposits to the store: validation, namespaces, retries on a moved version,
and ``unmerge``. Planning lives in :mod:`graphmem.consensus`."""

from __future__ import annotations

import json
import random
import time
from datetime import datetime
from typing import Any, Callable, Sequence

from graphmem.consensus import Plan, new_id, plan_deposit
from graphmem.designs import CONSENSUS, Design
from graphmem.errors import InvalidInput, StoreError
from graphmem.models import Deposit, RememberResult, validate_deposit
from graphmem.store.base import Store
from graphmem.view import NamespaceView

MAX_ATTEMPTS = 60


def now_ms() -> int:
    return int(time.time() * 1000)


class Views:
    """The in-process views of the namespaces this process has touched."""

    def __init__(self, store: Store, queries) -> None:
        self.store = store
        self.queries = queries
        self._views: dict[str, NamespaceView] = {}
        self._text_indexes: dict[str, Any] = {}
        self._known_ns: dict[str, bool] = {}  # ns -> strict

    def ensure_namespace(self, ns: str, *, strict: bool = False) -> bool:
        """Create the namespace if new; return whether it is strict."""
        if ns not in self._known_ns:
            rows = self.store.write(self.queries["memory/ensure_namespace"],
                                    {"ns": ns, "strict": strict, "now": now_ms()})
            self._known_ns[ns] = bool(rows[0]["strict"])
        return self._known_ns[ns]

    def forget_strictness(self, ns: str) -> None:
        self._known_ns.pop(ns, None)

    def forget_namespace(self, ns: str) -> None:
        """Drop what this process cached of ``ns`` (after it was deleted or rebuilt)."""
        self._known_ns.pop(ns, None)
        self._views.pop(ns, None)
        self._text_indexes.pop(ns, None)

    def text_index(self, ns: str):
        """The BM25 index that follows the view of ``ns``."""
        if ns not in self._text_indexes:
            from graphmem.retrieval.channels import TextIndex

            self._text_indexes[ns] = TextIndex(self._views.setdefault(ns, NamespaceView(ns)))
        return self._text_indexes[ns]

    def version(self, ns: str) -> int:
        rows = self.store.read(self.queries["memory/namespace_version"], {"ns": ns})
        return int(rows[0]["version"]) if rows else 0

    def synced(self, ns: str, version: int | None = None) -> NamespaceView:
        """The view of ``ns``, caught up with the store (at ``version`` when the caller
        knows it, e.g. right after its own write; else the version is read)."""
        view = self._views.setdefault(ns, NamespaceView(ns))
        view.sync(self.store, self.queries, self.version(ns) if version is None else version)
        return view


class Writer:
    """The write path of one MemoryGraph."""

    def __init__(self, views: Views, *, embed: Callable[[Sequence[str]], Any],
                 atomise: Callable[..., list[str]], judge: Callable, canonical: Callable,
                 apply_query: str, design: Design = CONSENSUS) -> None:
        self.views = views
        self.store = views.store
        self.queries = views.queries
        self._embed = embed
        self._atomise = atomise
        self._judge = judge
        self._canonical = canonical
        self._apply_query = apply_query
        self._names: dict[tuple[str, str], str] = {}
        self.design = design
        #: extract entities and times on write (MENTIONS, StoryArc); off for speed
        self.annotate = True

    def register_agent(self, ns: str, agent: str, *, kind: str | None = None,
                       name: str | None = None) -> dict:
        self.views.ensure_namespace(ns)
        if not agent:
            raise InvalidInput("agent id is empty")
        rows = self.store.write(self.queries["memory/register_agent"],
                                {"ns": ns, "id": agent, "kind": kind, "name": name,
                                 "now": now_ms()})
        if name:
            self._names[(ns, agent)] = name
        return rows[0]

    def prepare(self, deposits: list[dict]) -> None:
        """Embed and parse the statements of many deposits in one batch each (the embedder
        and the parser keep them for the deposits' own ``remember``)."""
        atoms = []
        for d in deposits:
            try:
                deposit = validate_deposit(**{**d, "at": None})
            except InvalidInput:
                continue  # remember() reports it, in order
            atoms.extend(self._atomise(deposit.text, speaker=self._speaker_name(deposit)))
        self._embed(atoms)
        if self.annotate:  # parsed in one batch now, read from the parse cache by remember
            from graphmem.text.nlp import parse_many

            parse_many(atoms)

    def remember(self, **fields: Any) -> RememberResult:
        deposit = validate_deposit(**fields)
        strict = self.views.ensure_namespace(deposit.ns)
        if strict:
            self._check_known(deposit)
        if self.design.private_copies and deposit.witnesses:
            return self._remember_private_copies(deposit)
        return self._remember(deposit)

    def _remember_private_copies(self, deposit: Deposit) -> RememberResult:
        """One record per party present, each owned by that party alone."""
        results = [self._remember(deposit.model_copy(update={"agent": party, "witnesses": ()}))
                   for party in (deposit.agent, *deposit.witnesses)]
        first = results[0]
        atoms = [atom for result in results for atom in result.atoms]
        return RememberResult(deposit_id=first.deposit_id, ns=first.ns, atoms=atoms,
                              attempts=max(r.attempts for r in results))

    def _remember(self, deposit: Deposit) -> RememberResult:
        atoms = self._atomise(deposit.text, speaker=self._speaker_name(deposit))
        if not atoms:
            raise InvalidInput("the deposit has no statement to remember after atomising")
        vectors = self._embed(atoms)
        view = self.views.synced(deposit.ns)
        meanings = self._annotate(atoms, deposit, view) if self.annotate else None
        for attempt in range(1, MAX_ATTEMPTS + 1):
            if attempt > 1:  # another writer moved the namespace: catch up, plan again
                view = self.views.synced(deposit.ns)
            plan = plan_deposit(deposit, atoms, vectors, view, judge=self._judge,
                                canonical=self._canonical, now_ms=now_ms(), meanings=meanings,
                                merge=self.design.merge, link=self.design.link)
            if self._apply(deposit.ns, view.version, plan):
                self.views.synced(deposit.ns, view.version + 1)
                return RememberResult(deposit_id=plan.deposit_id, ns=deposit.ns,
                                      atoms=plan.outcomes, attempts=attempt)
            time.sleep(random.uniform(0, 0.002 * attempt))  # another writer got there first
        raise StoreError(f"could not apply the deposit after {MAX_ATTEMPTS} attempts: "
                         "the namespace is changing too fast; retry later")

    def _annotate(self, atoms: list[str], deposit: Deposit, view) -> list:
        from graphmem.text.annotate import annotate_atoms

        speaker = self._speaker_name(deposit)
        people = [speaker, *(self._names.get((deposit.ns, w), w) for w in deposit.witnesses)]
        return annotate_atoms(atoms, speaker=speaker, reference=deposit.at,
                              resolver=view.resolver, known_people=people)

    def _apply(self, ns: str, version: int, plan: Plan) -> bool:
        params = {"ns": ns, "expected": version, "seq": version + 1, "now": now_ms(),
                  **plan.params}
        return bool(self.store.write(self._apply_query, params))

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

    def agent_name(self, ns: str, agent: str) -> str:
        """The name ``agent`` was registered with in ``ns`` (its id if none)."""
        key = (ns, agent)
        if key not in self._names:
            rows = self.store.read(self.queries["memory/agent_name"], {"ns": ns, "id": agent})
            self._names[key] = (rows[0]["name"] if rows and rows[0]["name"] else agent)
        return self._names[key]

    # -- unmerge ------------------------------------------------------------------

    def unmerge(self, ns: str, memory_id: str, *, op_id: str | None = None) -> str:
        """Undo the latest (or the given) merge into ``memory_id``; return the restored id."""
        rows = self.store.read(self.queries["memory/merge_ops"], {"ns": ns, "memory": memory_id})
        if op_id is not None:
            rows = [r for r in rows if r["id"] == op_id]
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
        prior = set(payload["prior_owners"])
        vector = self._embed([payload["atom"]])[0]
        for attempt in range(1, MAX_ATTEMPTS + 1):
            view = self.views.synced(ns)
            record = view.records[memory_id]
            before = payload["before"]
            remaining = [v for v in record.variants
                         if v != payload["atom"] or v in before["variants"]]
            asserted = [a for a in record.asserted_by
                        if a != op["agent"] or a in before["asserted_by"]]
            restored = new_id("m")
            params = {
                "ns": ns, "expected": view.version, "seq": view.version + 1, "now": now_ms(),
                "memory": memory_id, "restored": restored, "atom": payload["atom"],
                "embedding": [float(x) for x in vector], "deposit": deposit,
                "op": op["id"], "unmerge_op": new_id("op"),
                "text": self._canonical(remaining), "variants": remaining,
                "asserted_by": asserted,
                "restored_asserted_by": [op["agent"]],
                "moves": [{k: p[k] for k in ("agent", "since", "via", "from")} for p in parties],
                "drop": [p["agent"] for p in parties if p["agent"] not in prior],
                "siblings": siblings,
            }
            if self.store.write(self.queries["memory/unmerge"], params):
                self.views.synced(ns)
                return restored
            time.sleep(random.uniform(0, 0.002 * attempt))
        raise StoreError("could not apply the unmerge: the namespace is changing too fast")


def parse_at(value: Any) -> datetime | None:
    """Accept a datetime, an ISO string, a date text or epoch milliseconds for ``at``."""
    if value is None or isinstance(value, datetime):
        return value
    from graphmem.text.times import parse_when

    try:
        return parse_when(value)
    except InvalidInput as exc:
        raise InvalidInput(f"invalid time for 'at': {exc}") from None

"""The public entry point: :class:`MemoryGraph`."""

from __future__ import annotations

import threading
from collections import deque
from functools import partial
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from graphmem.atomise import LLMAtomiser, atomise
from graphmem.consensus import Judge
from graphmem.designs import design_named
from graphmem.embed import Embedder
from graphmem.configured import chat_model_from_env, embedder_from_env, llm_roles
from graphmem.errors import ConfigError, CorruptDataError, InvalidInput
from graphmem.curating import Curating
from graphmem.governance import Governance, one_at_a_time
from graphmem.upkeep import Upkeep, store_upgrades
from graphmem.who_knew import WhoKnew
from graphmem.integrity import check_store
from graphmem.judge import LLMJudge, judge_equivalence
from graphmem.lifecycle.curation import Curator
from graphmem.lifecycle.maintenance import settings_of
from graphmem.lifecycle.summarise import LLMSummariser, central_statement
from graphmem.models import (DEFAULT_NS, Hit, RememberResult, check_identifier, validate_deposit)
from graphmem.queries import queries_for
from graphmem.retrieval.config import HYBRID, RecallConfig, preset, weights_for
from graphmem.retrieval.pipeline import Amplification, recall_fused
from graphmem.retrieval.query import parse_query
from graphmem.settings import StoreSettings
from graphmem.store import Store, open_store
from graphmem.store.upgrades import pending_upgrades, warn_pending
from graphmem.security import operation
from graphmem.text.nlp import Parser
from graphmem.trust.admin import TrustAdmin
from graphmem.trust.bundle import with_authorship
from graphmem.trust.gate import AgentState
from graphmem.trust.ledger import DepositTrust
from graphmem.trust.policy import parse_policy
from graphmem.views import NamespaceState, Views, now_ms
from graphmem.write_config import DEFAULT_WRITE, WriteConfig
from graphmem.writer import Writer, parse_at


class MemoryGraph(Curating, Governance, WhoKnew, Upkeep):
    """Shared long-term memory for many agents, kept in a graph database.

    Open it with :meth:`open`; close it (or use ``with``) to stop what it started.

    One handle may be shared by threads: its calls that read or change the namespace
    views (remember, recall, unmerge, ...) take turns on the handle's lock, so threads
    get correct results but no parallelism from one handle; for that open a handle per
    thread or process (every write is one statement guarded by the namespace's version,
    so handles race safely). Each handle keeps its own caches; pass one ``Embedder`` to
    several handles to share its cache too.
    """

    def __init__(self, store: Store, *, embedder: Embedder | None = None,
                 atomiser: Any = None, judge: Judge | None = None, design: str = "consensus",
                 write_config: WriteConfig = DEFAULT_WRITE,
                 parser: Parser | None = None, adopt_embedder: bool = False,
                 summariser: Any = None, clock: Callable[[], int] | None = None) -> None:
        self._store = store
        #: epoch ms now, for trust (rate limits, quarantine, sessions, conflict TTL, event
        #: times): injectable, so that tests and replays need not sleep
        self._clock = clock or now_ms
        self._queries = queries_for(store.capabilities.backend)
        self._embedder = embedder or Embedder()
        self._parser = parser or Parser()
        self._views = Views(store, self._queries)
        grammar = Parser(full=True)  # the judge's and the detector's: one parse of a statement
        default_judge = partial(judge_equivalence, threshold=write_config.threshold,
                                contradiction_floor=write_config.contradiction_floor,
                                parser=grammar)
        self._writer = Writer(self._views, embed=self._embedder.embed,
                              atomise=atomiser or atomise, judge=judge or default_judge,
                              parser=self._parser, design=design_named(design),
                              grammar=None if judge else grammar,
                              config=write_config,
                              trust=DepositTrust(self._views, self._clock),
                              clock=self._clock)
        self._trust = TrustAdmin(self._views, self._embedder.embed, self._clock)
        self._amplification = Amplification()
        self._curator = Curator(store, self._queries, self._views, self._embedder.embed,
                                summarise=summariser or central_statement)
        self._lock = threading.RLock()
        #: (ns, agent) -> the last WORKING_MEMORY memories the agent deposited or recalled
        self._working: dict[tuple[str, str], deque[str]] = {}
        recorded = self.query("admin/embedding_model",
                              {"name": self._embedder.name, "now": now_ms()}, write=True)[0]
        if recorded["name"] != self._embedder.name and not adopt_embedder:
            raise ConfigError(
                f"the store's vectors were made with the embedding model {recorded['name']!r} "
                f"but this process uses {self._embedder.name!r} (GRAPHMEM_EMBEDDER); open it "
                f"with the same model, or rebuild its vectors with `graphmem reembed` "
                "(every other process closed)")

    @classmethod
    def open(cls, uri: str | None = None, data_dir: str | Path | None = None, *,
             embedder: Embedder | None = None, atomiser: Any = None, judge: Judge | None = None,
             design: str = "consensus", write_config: WriteConfig = DEFAULT_WRITE,
             check: bool = True, adopt_embedder: bool = False,
             clock: Callable[[], int] | None = None, **settings: Any) -> "MemoryGraph":
        """Open the store ``uri`` names (default: the embedded store in ``data_dir``).

        Arguments left None come from the environment (GRAPHMEM_URI, GRAPHMEM_DATA, ...).
        The schema is brought up to date on open. ``design`` picks the write path:
        consensus (default), nomerge, private or shared-acl (see graphmem.designs).
        ``atomiser`` and ``judge`` replace the deterministic defaults (for example
        ``graphmem.atomise.LLMAtomiser(chat_model)``, ``graphmem.judge.LLMJudge(chat_model)``);
        ``write_config`` tunes the write path (``graphmem.WriteConfig``). Models left None
        come from GRAPHMEM_EMBEDDER and GRAPHMEM_LLM (``graphmem.configured``); a store
        built with another embedding model is refused unless ``adopt_embedder`` (what
        ``reembed`` needs). With ``check``
        (the default) a store whose writes were lost to a damaged log is refused with
        ``CorruptDataError`` (see ``graphmem.integrity``; ``graphmem check`` shows why).
        ``clock`` (epoch ms) replaces the wall clock for trust's windows and event times.
        """
        config = StoreSettings.from_env(uri=uri, data_dir=data_dir, **settings)
        embedder = embedder or embedder_from_env()
        chat_model = chat_model_from_env()
        summariser = None
        if chat_model is not None:
            roles = llm_roles()
            atomiser = atomiser or (LLMAtomiser(chat_model) if "atomise" in roles else None)
            judge = judge or (LLMJudge(chat_model) if "judge" in roles else None)
            summariser = LLMSummariser(chat_model) if "consolidate" in roles else None
        store = open_store(config)
        try:
            store.ensure_schema()
            queries = queries_for(store.capabilities.backend)
            problems = check_store(store, queries) if check else []
            if not problems:  # a damaged store is refused before anything is written to it
                warn_pending(pending_upgrades(store, queries,
                                              also=store_upgrades(write_config.supersession)),
                             store.uri)
        except BaseException:
            store.close()
            raise
        if problems:
            store.close()
            remedy = (f"close every process using it and run `graphmem repair --data-dir "
                      f"{config.data_dir}`: it keeps what replays consistently and says "
                      "what was lost" if config.uri is None or config.uri.startswith(
                          "embedded:") else "run `graphmem check` for details")
            raise CorruptDataError(f"the store at {store.uri} is damaged: "
                                   + "; ".join(map(str, problems)) + f". To recover, {remedy}")
        try:
            return cls(store, embedder=embedder, atomiser=atomiser, judge=judge, design=design,
                       write_config=write_config, adopt_embedder=adopt_embedder,
                       summariser=summariser, clock=clock)
        except BaseException:
            store.close()
            raise

    @property
    def embedder(self) -> Embedder:
        """The embedder this handle uses (share it with another handle to share its cache)."""
        return self._embedder

    @property
    def backend(self) -> str:
        """"falkordb" or "neo4j"."""
        return self._store.capabilities.backend

    # -- agents and namespaces -------------------------------------------------------

    @one_at_a_time
    def register_agent(self, agent: str, *, kind: str | None = None, name: str | None = None,
                       ns: str = DEFAULT_NS, public_key: str | None = None,
                       by: str | None = None, signature: str | None = None) -> dict:
        """Create or update an agent (``kind``: character, human, ai, service, process,
        ...). ``public_key`` (``graphmem.security.generate_keypair()``'s second value)
        checks its signed writes. In a governed namespace an ADMIN ``by`` registers it,
        and a new agent starts in quarantine (``set_policy``)."""
        check_identifier(agent, "agent")
        check_identifier(ns, "ns")
        if by is not None:
            check_identifier(by, "by")
        self._writer.check_kind(kind)
        # the trust side first: in a governed namespace it refuses before anything is
        # written (and starts a new agent's quarantine)
        profile = self._trust.register(ns, agent, kind=kind, name=name, public_key=public_key,
                                       by=by, signature=signature, op=operation(
                                           "register_agent", ns=ns, agent=agent, kind=kind,
                                           name=name, public_key=public_key, by=by))
        row = self._writer.register_agent(ns, agent, kind=kind, name=name)
        return {**row, **({"quarantined_until": profile.get("quarantined_until")}
                          if profile else {})}

    @one_at_a_time
    def drop_namespace(self, ns: str) -> None:
        """Delete every node of ``ns`` (and what this process cached of it)."""
        check_identifier(ns, "ns")
        self.query("memory/drop_namespace", {"ns": ns}, write=True)
        self._store.forget_version(ns)
        self._views.forget_namespace(ns)

    @one_at_a_time
    def warm(self, ns: str = DEFAULT_NS) -> None:
        """Read ``ns`` into this process's view and build its text index now, so that the
        first recall costs what every later one does (after opening a store, or after a
        bulk ingestion)."""
        check_identifier(ns, "ns")
        self._views.text_index(ns)
        self._views.synced(ns)

    @one_at_a_time
    def set_strict(self, ns: str, strict: bool = True) -> None:
        """In a strict namespace, deposits naming unregistered agents are refused."""
        check_identifier(ns, "ns")
        self._views.ensure_namespace(ns, strict=strict)
        self.query("memory/set_strict", {"ns": ns, "strict": strict}, write=True)

    # -- write and read ---------------------------------------------------------------

    @one_at_a_time
    def remember(self, agent: str, text: str, *, witnesses: Sequence[str] = (),
                 told_by: str | None = None, at: Any = None, place: str | None = None,
                 domain: str | None = None, ns: str = DEFAULT_NS,
                 via: str | None = None, context: str | None = None,
                 kind: str = "episodic", signature: str | None = None) -> RememberResult:
        """Deposit what ``agent`` remembers; equivalent memories are merged, not copied.

        ``witnesses`` were present and come to own the memory too; ``told_by`` is the
        agent it was learned from; ``at`` is when it happened (datetime, ISO text, a date
        such as "8 May 2023", or epoch milliseconds). ``context`` is what the deposit
        answers or follows (the previous turn of a conversation): it is indexed for
        search with the new memories ("I've had them for 3 years" is found by a question
        about turtles) and never remembered as a statement. Applied in one transaction;
        returns what happened to each atom. ``kind`` is ``episodic`` (default) or
        ``procedural`` (how to do something, a tool's result). ``domain`` is the trust
        domain (default: the namespace's). ``signature``: where the namespace requires
        signed writes, ``graphmem.security.sign(private_key, operation("remember",
        ns=..., agent=..., text=..., <the other arguments you pass>))``.
        """
        op = operation("remember", ns=ns, agent=agent, text=text, witnesses=list(witnesses),
                       told_by=told_by, at=at, place=place, domain=domain, via=via,
                       context=context, kind=None if kind == "episodic" else kind)
        result = self._writer.remember(signature=signature, op=op,
                                       agent=agent, text=text, witnesses=witnesses,
                                       told_by=told_by, at=parse_at(at), place=place,
                                       domain=domain, ns=ns, via=via, context=context,
                                       kind=kind)
        self._attend(ns, agent, result.memory_ids)
        return result

    @one_at_a_time
    def remember_many(self, deposits: Sequence[Mapping[str, Any]], *,
                      ns: str = DEFAULT_NS, batch: int = 256) -> list[RememberResult]:
        """``remember`` each deposit (a dict of remember's arguments), in order.

        The same path as ``remember``, one transaction per deposit, but the statements of
        each batch of deposits are embedded together first, which is several times faster
        than one at a time on a CPU.
        """
        check_identifier(ns, "ns")
        for i, d in enumerate(deposits):  # a bad deposit is found before any is applied
            try:
                validate_deposit(**{"ns": ns, **d, "at": parse_at(d.get("at"))})
            except (InvalidInput, TypeError) as exc:
                raise InvalidInput(f"deposit {i} of {len(deposits)}: {exc}; "
                                   "nothing was applied") from None
        results: list[RememberResult] = []
        for lo in range(0, len(deposits), batch):
            chunk = [{"ns": ns, **d} for d in deposits[lo:lo + batch]]
            self._writer.prepare(chunk)
            for d in chunk:
                try:
                    results.append(self.remember(**d))
                except InvalidInput as exc:
                    done = (f"deposits 0 to {len(results) - 1} were applied"
                            if results else "none was applied")
                    raise InvalidInput(f"deposit {len(results)} of {len(deposits)}: {exc}; "
                                       f"{done}, none after it") from None
        return results

    @one_at_a_time
    def recall(self, agent: str, query: str, *, k: int = 10, ns: str = DEFAULT_NS,
               config: RecallConfig | str | None = None, expand: bool | None = None,
               explain: bool = False, token: str | None = None,
               signature: str | None = None) -> list[Hit]:
        """The ``k`` memories ``agent`` owns that best answer ``query``, best first.

        Channels (dense, bm25, time, profile, speaker; graph when weighted) are weighted by
        the kind of question and fused by reciprocal rank fusion; affiliated neighbours
        are ranked in; the list is cut to k. ``config`` is a RecallConfig or a preset name
        ("HYBRID", "DENSE_ONLY", "BM25_ONLY", "HYBRID_RRF"). Each hit carries its rank in
        every channel (``channels``), the channel that ranked it best (``found_by``), its
        owners and conflicts, and its authorship: who asserted it, the trust domain and
        scores, its confidence, quarantined or unverified (of two hits in conflict the
        more credible comes first: graphmem.trust.bundle). With ``explain=True`` also
        the query's kind, the channel weights and the entities seen. In a governed
        namespace the asker needs READ, and the namespace's ``token`` where it has one.
        """
        check_identifier(agent, "agent")
        check_identifier(ns, "ns")
        if k <= 0:
            raise InvalidInput(f"k must be positive, got {k}")
        if not query or not query.strip():
            raise InvalidInput("query is empty")
        chosen = _recall_config(config, expand)
        state, task = self._views.recall_state(ns, agent)
        self._writer.names_as_of(ns, state)  # the names a question may use, kept or read
        policy = parse_policy(state.trust_policy if state else None)
        if policy.governed:
            self._trust.gate.admit(ns, agent, policy, need="read", token=token,
                                   signature=signature,
                                   op=operation("recall", ns=ns, agent=agent, query=query))
        view = self._views.synced(ns, state=state)
        parsed = parse_query(query, view=view, agent=agent, config=chosen,
                             embed_soon=self._embedder.embed_soon,
                             agent_names=lambda: self._writer.agent_names(ns, view.agents()))
        hits = recall_fused(view, self._views.text_index(ns), agent, parsed, chosen, k=k,
                            amplification=self._amplification)
        scores = self._scored(view, [h.memory_id for h in hits], agent,
                              settings_of(state.decay if state else None),
                              {agent: task} if task else {})
        hits = [h.model_copy(update={"utility": scores[h.memory_id].as_dict()}) for h in hits]
        hits = with_authorship(hits, view, self._profiles(ns, hits, state), policy)
        self._attend(ns, agent, [h.memory_id for h in hits])
        if explain:
            why = {"kind": str(parsed.kind.kind), "cues": list(parsed.kind.cues),
                   # in the first person: profile's weight went to `asker_profile`
                   "about_asker": parsed.kind.about_asker,
                   "weights": weights_for(chosen, parsed.kind if chosen.classify else None),
                   # only entities of memories the asker owns: the namespace's
                   # resolver knows every agent's
                   "entities": [e for e in parsed.entity_ids
                                if view.mentioning(e) & view.owned_ids(agent)],
                   "temporal": repr(parsed.intent) if parsed.intent else None}
            hits = [h.model_copy(update={"explain": why}) for h in hits]
        return hits

    @one_at_a_time
    def unmerge(self, memory_id: str, *, ns: str = DEFAULT_NS, op_id: str | None = None) -> str:
        """Undo the latest (or the given) merge into a memory; returns the restored memory id."""
        check_identifier(memory_id, "memory_id")
        check_identifier(ns, "ns")
        if op_id is not None:
            check_identifier(op_id, "op_id")
        return self._writer.unmerge(ns, memory_id, op_id=op_id)

    def _profiles(self, ns: str, hits: Sequence[Hit],
                  state: NamespaceState | None) -> dict[str, AgentState]:
        """The trust profiles of the agents that asserted ``hits`` (kept by the views
        while no write changed a profile since ``state``)."""
        rows = self._views.trust_rows(ns, state, {a for h in hits for a in h.asserted_by})
        return {a: AgentState.from_row(a, r) for a, r in rows.items()}

    # -- lifecycle ----------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; the embedded server stops when its last user closes."""
        try:
            self._views.save_snapshots()  # the next process starts from them (view_snapshot)
        finally:
            self._store.close()

    def __enter__(self) -> "MemoryGraph":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _recall_config(config: RecallConfig | str | None, expand: bool | None) -> RecallConfig:
    chosen = (config if isinstance(config, RecallConfig)
              else preset(config) if config else HYBRID)
    if expand is not None:
        chosen = chosen.model_copy(update={"expand_affiliated": expand})
    return chosen

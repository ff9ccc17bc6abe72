"""The public entry point: :class:`MemoryGraph`."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from graphmem.designs import design_named
from graphmem.errors import InvalidInput
from graphmem.models import DEFAULT_NS, Hit, RememberResult, to_epoch_ms
from graphmem.queries import queries_for
from graphmem.settings import StoreSettings
from graphmem.store import Store, open_store
from graphmem.store.base import Row, Tracer
from graphmem.store.schema import SCHEMA_VERSION
from graphmem.writer import Views, Writer, parse_at


def preset_with(config, **changes):
    """A validated copy of a RecallConfig with some fields changed."""
    return type(config).model_validate({**config.model_dump(), **changes})


class MemoryGraph:
    """Shared long-term memory for many agents, kept in a graph database.

    Open it with :meth:`open`; close it (or use ``with``) to stop what it started.
    """

    def __init__(self, store: Store, *, embedder=None, atomiser=None, judge=None,
                 design: str = "consensus") -> None:
        from graphmem.atomise import atomise
        from graphmem.canonical import canonical_text
        from graphmem.embed import default_embedder
        from graphmem.judge import judge_equivalence
        from graphmem.retrieval.pipeline import Amplification

        self.store = store
        self.queries = queries_for(store.capabilities.backend)
        self.embedder = embedder or default_embedder()
        self.views = Views(store, self.queries)
        self.writer = Writer(self.views, embed=self.embedder.embed,
                             atomise=atomiser or atomise, judge=judge or judge_equivalence,
                             canonical=canonical_text,
                             apply_query=self.queries["memory/apply_deposit"],
                             design=design_named(design))
        self.amplification = Amplification()
        self.recall_config = None  # a RecallConfig; None means the HYBRID preset

    @classmethod
    def open(cls, uri: str | None = None, data_dir: str | Path | None = None, *,
             embedder=None, atomiser=None, judge=None, design: str = "consensus",
             **settings: Any) -> "MemoryGraph":
        """Open the store ``uri`` names (default: the embedded store in ``data_dir``).

        Arguments left None come from the environment (GRAPHMEM_URI, GRAPHMEM_DATA, ...).
        The schema is brought up to date on open. ``design`` picks the write path:
        consensus (default), nomerge, private or shared-acl (see graphmem.designs).
        """
        config = StoreSettings.from_env(uri=uri, data_dir=data_dir, **settings)
        store = open_store(config)
        try:
            store.ensure_schema()
        except BaseException:
            store.close()
            raise
        return cls(store, embedder=embedder, atomiser=atomiser, judge=judge, design=design)

    # -- agents and namespaces -------------------------------------------------------

    def register_agent(self, agent: str, *, kind: str | None = None, name: str | None = None,
                       ns: str = DEFAULT_NS) -> dict:
        """Create or update an agent (``kind``: character, human, ai, service, ...)."""
        return self.writer.register_agent(ns, agent, kind=kind, name=name)

    def drop_namespace(self, ns: str) -> None:
        """Delete every node of ``ns`` (and what this process cached of it)."""
        self.query("memory/drop_namespace", {"ns": ns}, write=True)
        self.views.forget_namespace(ns)

    def warm(self, ns: str = DEFAULT_NS) -> None:
        """Read ``ns`` into this process's view and build its text index now, so that the
        first recall costs what every later one does (after opening a store, or after a
        bulk ingestion)."""
        self.views.text_index(ns)
        self.views.synced(ns)

    def set_strict(self, ns: str, strict: bool = True) -> None:
        """In a strict namespace, deposits naming unregistered agents are refused."""
        self.views.ensure_namespace(ns, strict=strict)
        self.store.write(self.queries["memory/set_strict"], {"ns": ns, "strict": strict})
        self.views.forget_strictness(ns)

    # -- write and read ---------------------------------------------------------------

    def remember(self, agent: str, text: str, *, witnesses: Sequence[str] = (),
                 told_by: str | None = None, at: Any = None, place: str | None = None,
                 domain: str | None = None, ns: str = DEFAULT_NS,
                 via: str | None = None, context: str | None = None) -> RememberResult:
        """Deposit what ``agent`` remembers; equivalent memories are merged, not copied.

        ``witnesses`` were present and come to own the memory too; ``told_by`` is the
        agent it was learned from; ``at`` is when it happened (datetime, ISO text, a date
        such as "8 May 2023", or epoch milliseconds). ``context`` is what the deposit
        answers or follows (the previous turn of a conversation): it is indexed for
        search with the new memories ("I've had them for 3 years" is found by a question
        about turtles) and never remembered as a statement. Applied in one transaction;
        returns what happened to each atom.
        """
        return self.writer.remember(agent=agent, text=text, witnesses=tuple(witnesses),
                                    told_by=told_by, at=parse_at(at), place=place,
                                    domain=domain, ns=ns, via=via, context=context)

    def remember_many(self, deposits: Sequence[Mapping[str, Any]], *,
                      ns: str = DEFAULT_NS, batch: int = 256) -> list[RememberResult]:
        """``remember`` each deposit (a dict of remember's arguments), in order.

        The same path as ``remember``, one transaction per deposit, but the statements of
        each batch of deposits are embedded together first, which is several times faster
        than one at a time on a CPU.
        """
        results = []
        for lo in range(0, len(deposits), batch):
            chunk = [{"ns": ns, **d} for d in deposits[lo:lo + batch]]
            self.writer.prepare(chunk)
            results.extend(self.remember(**d) for d in chunk)
        return results

    def recall(self, agent: str, query: str, *, k: int = 10, ns: str = DEFAULT_NS,
               config: Any = None, expand: bool | None = None,
               explain: bool = False) -> list[Hit]:
        """The ``k`` memories ``agent`` owns that best answer ``query``, best first.

        Channels (dense, bm25, graph, time) are weighted by the kind of question and fused
        by reciprocal rank fusion; affiliated neighbours are ranked in; the list is cut to
        k. ``config`` is a RecallConfig or a preset name ("HYBRID", "DENSE_ONLY",
        "BM25_ONLY", ...). Each hit carries its rank in every channel (``channels``), the
        channel that ranked it best (``found_by``), its owners and conflicts; with
        ``explain=True`` also the query's kind, the channel weights and the entities seen.
        """
        from graphmem.retrieval.pipeline import recall_fused

        if k <= 0:
            raise InvalidInput(f"k must be positive, got {k}")
        if not query or not query.strip():
            raise InvalidInput("query is empty")
        chosen = self._recall_config(config, expand)
        view = self.views.synced(ns)
        parsed = self._parse_query(query, view, chosen, agent)
        hits = recall_fused(view, self.views.text_index(ns), agent, parsed, chosen, k=k,
                            amplification=self.amplification)
        if explain:
            from graphmem.retrieval.config import weights_for

            why = {"kind": str(parsed.kind.kind), "cues": list(parsed.kind.cues),
                   "weights": weights_for(chosen, parsed.kind if chosen.classify else None),
                   "entities": parsed.entity_ids,
                   "temporal": repr(parsed.intent) if parsed.intent else None}
            hits = [h.model_copy(update={"explain": why}) for h in hits]
        return hits

    def _recall_config(self, config: Any, expand: bool | None):
        from graphmem.retrieval.config import HYBRID, RecallConfig, preset

        chosen = (config if isinstance(config, RecallConfig)
                  else preset(config) if config else self.recall_config or HYBRID)
        if expand is not None:
            chosen = preset_with(chosen, expand_affiliated=expand)
        return chosen

    def _parse_query(self, query: str, view, config, agent: str):
        from graphmem.text.annotate import query_entities, without_spans
        from graphmem.text.temporal_query import temporal_query
        from graphmem.retrieval.classify import classify_query
        from graphmem.retrieval.pipeline import Query, named_agents, salient_entities
        from graphmem.retrieval.config import weights_for

        mentions = query_entities(query, view.resolver)
        salient = salient_entities(view, agent, [m.id for m in mentions])
        # A name on most of the asker's memories (a conversation's own speakers) says
        # little about which memory answers; it would pull the embedding towards every
        # memory of that person, so the dense channel reads the question without it.
        dense_text = without_spans(query, [(m.start, m.end) for m in mentions
                                           if m.id not in salient]) or query
        intent = temporal_query(query) if "time" in config.channels else None
        kind = classify_query(query)
        # the agents a question names matter only to the speaker channel, which runs for
        # some kinds of question: look for them only when it will
        weights = weights_for(config, kind if config.classify else None)
        subjects = (named_agents(query, {a: self.writer.agent_name(view.ns, a)
                                         for a in view.agents()})
                    if weights.get("speaker", 0) > 0 else [])
        return Query(text=query, vector=self.embedder.embed([dense_text])[0],
                     entity_ids=salient, kind=kind, intent=intent, subjects=subjects)

    def unmerge(self, memory_id: str, *, ns: str = DEFAULT_NS, op_id: str | None = None) -> str:
        """Undo the latest (or the given) merge into a memory; returns the restored memory id."""
        return self.writer.unmerge(ns, memory_id, op_id=op_id)

    # -- who knew what, when, from whom ---------------------------------------------

    def owners_of(self, text: str, *, ns: str = DEFAULT_NS, limit: int = 100) -> list[Row]:
        """Who owns the memories whose text contains ``text``, how, from whom, since when."""
        return self.query("who_knew/owners_of", {"ns": ns, "text": text, "limit": limit})

    def knew_at(self, agent: str, at: Any, *, ns: str = DEFAULT_NS,
                limit: int = 100) -> list[Row]:
        """What ``agent`` knew at or before ``at`` (world time), latest first."""
        when = parse_at(at)
        if when is None:
            raise InvalidInput("knew_at needs a time")
        return self.query("who_knew/knew_at", {"ns": ns, "agent": agent,
                                               "at": to_epoch_ms(when), "limit": limit})

    def learned_from(self, agent: str, text: str | None = None, *, ns: str = DEFAULT_NS,
                     limit: int = 100) -> list[Row]:
        """From whom ``agent`` learned what it was told (optionally about ``text``)."""
        return self.query("who_knew/learned_from",
                          {"ns": ns, "agent": agent, "text": text, "limit": limit})

    def shared_most(self, *, ns: str = DEFAULT_NS, limit: int = 10) -> list[Row]:
        """Pairs of agents sharing the most memories."""
        return self.query("who_knew/shared_most", {"ns": ns, "limit": limit})

    def stats(self, *, ns: str = DEFAULT_NS) -> dict[str, Any]:
        """Structure metrics of a namespace: entries, multi-owner share, linked share,
        deepest merge, contradictions, and the mean recall amplification of this process."""
        row = self.query("stats/structure", {"ns": ns})[0]
        entries = row["entries"] or 0
        contradictions = self.query("stats/contradictions", {"ns": ns})[0]["contradictions"]
        return {
            "ns": ns,
            "entries": entries,
            "multi_owner_share": (row["multi_owner"] or 0) / entries if entries else 0.0,
            "linked_share": (row["linked"] or 0) / entries if entries else 0.0,
            "max_owners": row["max_owners"] or 0,
            "contradictions": contradictions,
            "recalls": self.amplification.recalls,
            "recall_amplification": self.amplification.mean,
            "pool_amplification": self.amplification.pool_mean,
        }

    # -- raw Cypher ---------------------------------------------------------------

    def cypher(self, query: str, params: Mapping[str, Any] | None = None, *,
               write: bool = False) -> list[Row]:
        """Run Cypher and return rows as dicts; read-only unless ``write=True``."""
        run = self.store.write if write else self.store.read
        return run(query, dict(params or {}))

    def query(self, name: str, params: Mapping[str, Any] | None = None, *,
              write: bool = False) -> list[Row]:
        """Run a named query from ``cypher/`` (e.g. ``"who_knew/owners_of"``)."""
        return self.cypher(self.queries[name], params, write=write)

    @contextmanager
    def tracer(self, tracer: Tracer = print) -> Iterator[None]:
        """Within the block, call ``tracer(query, params)`` for every query run."""
        self.store.add_tracer(tracer)
        try:
            yield
        finally:
            self.store.remove_tracer(tracer)

    # -- status -------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """Backend, URI, node counts by label, edge counts by type, schema version."""
        caps = self.store.capabilities
        return {
            "backend": caps.backend,
            "version": caps.version,
            "uri": self.store.uri,
            "schema_version": len(self.store.schema_steps()),
            "schema_version_expected": SCHEMA_VERSION,
            "nodes": {r["label"]: r["count"] for r in self.query("admin/label_counts")},
            "edges": {r["type"]: r["count"] for r in self.query("admin/relationship_counts")},
        }

    # -- lifecycle ----------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; the embedded server stops when its last user closes."""
        self.store.close()

    def __enter__(self) -> "MemoryGraph":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

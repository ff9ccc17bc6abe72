"""Curation and Intelligent Decay on ``MemoryGraph``: a person (or an authorised agent)
pinning, forgetting, correcting, deleting and consolidating memories, an agent's working
memory and task, and ``maintain``. A mixin of :class:`graphmem.api.MemoryGraph`; the work
is done by :mod:`graphmem.lifecycle`."""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Callable, Sequence

from graphmem.errors import InvalidInput
from graphmem.governance import one_at_a_time
from graphmem.lifecycle.curation import Curator
from graphmem.lifecycle.decay import DecaySettings, Utility
from graphmem.lifecycle.maintenance import decay_settings, hit_utilities, maintain
from graphmem.models import DEFAULT_NS, check_identifier, to_epoch_ms
from graphmem.queries import Queries
from graphmem.querying import Querying
from graphmem.store import Store
from graphmem.trust.admin import TrustAdmin
from graphmem.view import NamespaceView
from graphmem.views import Views, now_ms
from graphmem.writer import parse_at

#: items in an agent's working-memory buffer (the brain-inspired paper's capacity)
WORKING_MEMORY = 10


class Curating(Querying):
    """The curation and decay methods of a ``MemoryGraph`` (see the module docstring)."""

    _store: Store
    _queries: Queries
    _views: Views
    _curator: Curator
    _trust: TrustAdmin
    _lock: threading.RLock
    _clock: Callable[[], int]
    _working: dict[tuple[str, str], deque[str]]
    _embedder: Any

    def pin(self, memory_id: str, *, by: str, ns: str = DEFAULT_NS) -> None:
        """Keep ``memory_id`` whatever its utility; logged as done by ``by``."""
        self._curator.set_pinned(memory_id, True, by=by, ns=ns)

    @one_at_a_time
    def unpin(self, memory_id: str, *, by: str, ns: str = DEFAULT_NS) -> None:
        """Undo ``pin``."""
        self._curator.set_pinned(memory_id, False, by=by, ns=ns)

    @one_at_a_time
    def forget(self, memory_id: str, *, by: str, ns: str = DEFAULT_NS) -> None:
        """Take ``memory_id`` out of recall (reversible with ``unforget``; kept for audit)."""
        self._curator.set_forgotten(memory_id, True, by=by, ns=ns)

    @one_at_a_time
    def unforget(self, memory_id: str, *, by: str, ns: str = DEFAULT_NS) -> None:
        """Bring a forgotten memory back into recall."""
        self._curator.set_forgotten(memory_id, False, by=by, ns=ns)

    @one_at_a_time
    def correct(self, memory_id: str, text: str, *, by: str, ns: str = DEFAULT_NS) -> str:
        """A new wording that supersedes ``memory_id`` from now on; returns its id."""
        return self._curator.correct(memory_id, text, by=by, ns=ns)

    @one_at_a_time
    def delete(self, memory_id: str, *, by: str, ns: str = DEFAULT_NS) -> None:
        """Erase ``memory_id``'s text, wordings, context and vector (and the deposit texts
        and log payloads quoting it) for a privacy request; a tombstone and the logged act
        remain."""
        self._curator.delete(memory_id, by=by, ns=ns)

    @one_at_a_time
    def consolidate(self, memory_ids: Sequence[str], *, by: str,
                    ns: str = DEFAULT_NS) -> str:
        """Several memories become one semantic fact owned by all their owners; the
        sources leave recall but stay, linked by CONSOLIDATED_FROM. Returns its id."""
        return self._curator.consolidate(memory_ids, by=by, ns=ns)

    def working_memory(self, agent: str, *, ns: str = DEFAULT_NS) -> list[str]:
        """The last memories (at most WORKING_MEMORY, newest last) ``agent`` deposited or
        recalled through this handle: the prefrontal buffer of the brain-inspired design."""
        return list(self._working.get((ns, agent), ()))

    def _attend(self, ns: str, agent: str, memory_ids: Sequence[str]) -> None:
        buffer = self._working.setdefault((ns, agent), deque(maxlen=WORKING_MEMORY))
        for mid in memory_ids:
            if mid in buffer:
                buffer.remove(mid)
            buffer.append(mid)

    # -- Intelligent Decay (graphmem.lifecycle.decay) ---------------------------------

    def set_task(self, agent: str, task: str, *, ns: str = DEFAULT_NS) -> None:
        """What ``agent`` works on now: memories relevant to it score higher (E)."""
        check_identifier(agent, "agent")
        check_identifier(ns, "ns")
        if not isinstance(task, str) or not task.strip():
            raise InvalidInput("the task is empty; describe what the agent works on")
        self.query("lifecycle/set_task", {"ns": ns, "agent": agent, "task": task.strip(),
                                          "now": now_ms()}, write=True)

    def set_decay(self, *, ns: str = DEFAULT_NS, **settings: float) -> DecaySettings:
        """Set ``ns``'s decay parameters (alpha, beta, gamma, half_life_days, threshold,
        cluster_similarity); returns them all."""
        check_identifier(ns, "ns")
        try:
            chosen = decay_settings(self._store, self._queries, ns).model_copy(
                update=settings)
            chosen = DecaySettings.model_validate(chosen.model_dump())
        except ValueError as exc:
            raise InvalidInput(f"invalid decay settings {settings}: {exc}") from None
        self._views.ensure_namespace(ns)
        self.query("lifecycle/set_decay_settings",
                   {"ns": ns, "decay": chosen.model_dump_json()}, write=True)
        return chosen

    @one_at_a_time
    def utilities(self, memory_ids: Sequence[str], *, agent: str | None = None,
                  ns: str = DEFAULT_NS) -> dict[str, dict[str, float]]:
        """The utility of each memory ({S, R, E, U}) as recall shows it on a hit: the
        namespace's decay settings and clock, relevance to ``agent``'s task; with no
        ``agent``, to the task of the memory's best owner, as ``maintain`` records it."""
        check_identifier(ns, "ns")
        if agent is not None:
            check_identifier(agent, "agent")
        view = self._views.synced(ns)
        ids = list(dict.fromkeys(memory_ids))
        unknown = [m for m in ids if m not in view.records]
        if unknown:
            raise InvalidInput(f"no memory {unknown[0]!r} in namespace {ns!r}")
        return {m: u.as_dict() for m, u in self._scored(view, ids, agent).items()}

    def _scored(self, view: NamespaceView, ids: Sequence[str], agent: str | None,
                settings: DecaySettings | None = None,
                tasks: dict[str, str] | None = None) -> dict[str, Utility]:
        """The scores recall puts on its hits (one path for recall and ``utilities``;
        ``settings``, ``tasks``: the namespace's decay settings and the asker's task
        where the caller has read them)."""
        return hit_utilities(self._store, self._queries, view, ids, agent,
                             self._embedder.embed,
                             None if self._clock is now_ms else self._clock(), settings,
                             tasks)

    @one_at_a_time
    def maintain(self, *, ns: str = DEFAULT_NS, now: Any = None) -> dict[str, Any]:
        """Score every memory of ``ns`` (S = αR + βE + γU, recorded on each memory for
        Cypher), consolidate related memories under the threshold into semantic facts and
        prune the rest under it; pinned memories are never touched. Returns what it did."""
        check_identifier(ns, "ns")
        when = parse_at(now)
        report = maintain(self._store, self._queries, self._views, self._curator,
                          self._embedder.embed, ns,
                          now=to_epoch_ms(when) if when is not None else
                          None if self._clock is now_ms else self._clock())
        return {"ns": ns, "scored": report.scored, "below_threshold": report.below_threshold,
                "pinned_kept": report.pinned_kept, "consolidated": report.consolidated,
                "pruned": report.pruned, "promoted": report.promoted,
                "over_capacity": report.over_capacity,
                "reconsolidated": report.reconsolidated, "changed": report.changed,
                # RFC-0011 §5: conflicts unresolved past the TTL get a summary memory
                "conflict_summaries": len(self._trust.escalate(ns))}


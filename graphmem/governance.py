"""Trust between agents on ``MemoryGraph`` (RFC-0011): the namespace policy, trust
profiles, permissions, quarantine, revocation, confidence, conflicts, the event log and
federated merges. A mixin of :class:`graphmem.api.MemoryGraph`; the work is done by
:mod:`graphmem.trust`.

Signed acts: in a namespace whose policy requires signatures, every act below that
writes takes ``signature=graphmem.security.sign(private_key, op)``, where ``op`` is
``graphmem.security.operation(<method name>, ns=..., <the arguments you pass>)`` —
the method's own arguments (``by`` included), those left at their defaults omitted.
"""

from __future__ import annotations

import threading
from functools import wraps
from pathlib import Path
from typing import Any, Callable, ParamSpec, Sequence, TypeVar

from graphmem.errors import InvalidInput
from graphmem.models import DEFAULT_NS, check_identifier
from graphmem.security import operation
from graphmem.trust.admin import TrustAdmin
from graphmem.trust.federation import federate
from graphmem.trust.policy import TrustPolicy
from graphmem.views import Views
from graphmem.writer import parse_at

P = ParamSpec("P")
R = TypeVar("R")


def one_at_a_time(method: Callable[P, R]) -> Callable[P, R]:
    """The method runs holding the handle's lock (its views are not built for racing)."""
    @wraps(method)
    def locked(*args: P.args, **kwargs: P.kwargs) -> R:
        with args[0]._lock:  # type: ignore[attr-defined]
            return method(*args, **kwargs)
    return locked


class Governance:
    """The trust acts of a ``MemoryGraph`` (see the module docstring)."""

    _trust: TrustAdmin
    _lock: threading.RLock
    _clock: Callable[[], int]
    _views: Views

    @one_at_a_time
    def set_policy(self, *, ns: str = DEFAULT_NS, by: str, signature: str | None = None,
                   **settings: Any) -> TrustPolicy:
        """Govern ``ns`` with RFC-0011's defences (permissions, signed writes if
        ``require_signatures``, rate limits, quarantine) and set any of its settings
        (``graphmem.trust.policy.TrustPolicy``; ``read_token=`` sets the namespace token
        reads need). The first call makes ``by`` (a human or process agent) the
        namespace's first ADMIN; later ones need an ADMIN."""
        check_identifier(ns, "ns")
        return self._trust.set_policy(ns, by, settings, signature=signature,
                                      op=operation("set_policy", ns=ns, by=by, **settings))

    def trust_policy(self, *, ns: str = DEFAULT_NS) -> TrustPolicy:
        """``ns``'s trust policy (an open one if none was set)."""
        check_identifier(ns, "ns")
        return self._trust.policy(ns)

    @one_at_a_time
    def set_trust(self, agent: str, score: float, *, domain: str | None = None,
                  ns: str = DEFAULT_NS, by: str, signature: str | None = None) -> dict:
        """Trust ``agent`` at ``score`` in ``domain`` (None: its default for every domain
        without a score of its own), as verified by ``by`` (a human or process agent);
        every memory it contributed to is re-evaluated. Logged as TRUST_SCORE_UPDATE."""
        check_identifier(ns, "ns")
        return self._trust.set_trust(ns, agent, score, domain=domain, by=by,
                                     signature=signature, op=operation(
                                         "set_trust", ns=ns, agent=agent, score=score,
                                         domain=domain, by=by))

    @one_at_a_time
    def set_permission(self, agent: str, level: str, *, ns: str = DEFAULT_NS, by: str,
                       signature: str | None = None) -> None:
        """Grant ``agent`` READ, WRITE or ADMIN in ``ns`` (or NONE); needs an ADMIN
        ``by`` in a governed namespace. Trust never replaces a permission."""
        check_identifier(ns, "ns")
        self._trust.set_permission(ns, agent, level, by=by, signature=signature,
                                   op=operation("set_permission", ns=ns, agent=agent,
                                                level=level, by=by))

    @one_at_a_time
    def lift_quarantine(self, agent: str, *, ns: str = DEFAULT_NS, by: str,
                        signature: str | None = None) -> None:
        """End ``agent``'s quarantine now (a human or process ADMIN only); what it
        asserted in quarantine stays capped."""
        check_identifier(ns, "ns")
        self._trust.lift_quarantine(ns, agent, by=by, signature=signature,
                                    op=operation("lift_quarantine", ns=ns, agent=agent, by=by))

    @one_at_a_time
    def revoke(self, agent: str, *, ns: str = DEFAULT_NS, by: str,
               signature: str | None = None) -> dict:
        """Refuse ``agent``'s operations from now on, trust it 0, re-evaluate every memory
        it contributed to, and mark those it alone asserted ``unverified``. Its past
        events and memories stay."""
        check_identifier(ns, "ns")
        return self._trust.revoke(ns, agent, by=by, signature=signature,
                                  op=operation("revoke", ns=ns, agent=agent, by=by))

    def confidence(self, memory_id: str, *, ns: str = DEFAULT_NS) -> float:
        """The confidence of ``memory_id`` in [0, 1]."""
        check_identifier(memory_id, "memory_id")
        check_identifier(ns, "ns")
        return self._trust.confidence(ns, memory_id)

    def replayed_confidence(self, *, ns: str = DEFAULT_NS) -> dict[str, float]:
        """Every memory's confidence recomputed from the event log with today's trust
        (what an auditor compares the stored confidences with)."""
        check_identifier(ns, "ns")
        return dict(self._trust.replay(ns).confidence)

    def events(self, *, ns: str = DEFAULT_NS, kinds: Sequence[str] | None = None,
               since: Any = None, limit: int = 10_000) -> list[dict]:
        """The event log of ``ns``, oldest first: every deposit, merge, reinforcement,
        contradiction, trust change, permission, quarantine, revocation, rate-limit
        violation, alert, resolution, summary and federation, with its actor, time and
        payload. ``kinds`` filters (RFC names such as ``TRUST_SCORE_UPDATE`` work);
        ``since`` is a time."""
        check_identifier(ns, "ns")
        when = parse_at(since)
        return self._trust.events(ns, kinds=kinds, limit=limit,
                                  since=None if when is None else int(when.timestamp() * 1000))

    def conflicts(self, *, ns: str = DEFAULT_NS, unresolved: bool = True,
                  limit: int = 1000) -> list[dict]:
        """Contradicting pairs of ``ns`` with both texts, asserters and confidences."""
        check_identifier(ns, "ns")
        return self._trust.conflicts(ns, unresolved=unresolved, limit=limit)

    @one_at_a_time
    def resolve_conflict(self, memory_id: str, winner_id: str, *, ns: str = DEFAULT_NS,
                         by: str, signature: str | None = None) -> str:
        """Resolve the conflict between ``memory_id`` and ``winner_id`` for the winner
        (a human, or an arbiter agent with ADMIN); the loser stays, weakened. Nothing
        resolves a conflict but this. Returns the loser's id."""
        check_identifier(ns, "ns")
        return self._trust.resolve_conflict(
            ns, memory_id, winner_id, by=by, signature=signature,
            op=operation("resolve_conflict", ns=ns, memory_id=memory_id,
                         winner_id=winner_id, by=by))

    def trust_profiles(self, *, ns: str = DEFAULT_NS) -> list[dict]:
        """Every agent's trust profile: kind, permission, default and per-domain trust,
        version, verifier, quarantine, revocation."""
        check_identifier(ns, "ns")
        return self._trust.profiles(ns)

    @one_at_a_time
    def federate(self, source: Any, *, node_id: str, ns: str = DEFAULT_NS,
                 source_ns: str | None = None) -> dict[str, int]:
        """Merge namespace ``source_ns`` (default ``ns``) of another graphmem store into
        ``ns``: ``source`` is a MemoryGraph, or a URI or data directory to open. Its
        agents become ``federated:<node_id>:<id>`` with no trust until local policy gives
        them some; its events are appended with their times and the merge time."""
        check_identifier(ns, "ns")
        other = source_ns or ns
        check_identifier(other, "source_ns")
        opened = None
        if isinstance(source, (str, Path)):
            text = str(source)
            opener = type(self).open  # type: ignore[attr-defined]  # MemoryGraph.open
            opened = opener(uri=text) if "://" in text or text.startswith("embedded:") \
                else opener(data_dir=text)
            source = opened
        if not hasattr(source, "query"):
            raise InvalidInput("source must be a MemoryGraph or a URI / data directory")
        try:
            return federate(lambda name, params: source.query(name, params), self._views,
                            source_ns=other, ns=ns, node_id=node_id,
                            policy=self._trust.policy(ns), at=self._clock(),
                            actor="graphmem:federation")
        finally:
            if opened is not None:
                opened.close()

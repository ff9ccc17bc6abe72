"""The confidence rule: events in, confidences out.

RFC-0011 leaves confidence evolution to another RFC; this is the smallest faithful rule,
and the one every number in graphmem's trust tests and benchmarks is computed with:

- **A deposit** that creates a memory gives it ``initial × trust(agent, domain)``.
- **A reinforcement** (another agent's deposit merged into it) adds
  ``gain = γ_base × trust(agent, domain) × (1 − c) × w``: the trust factor is exact, so
  with everything else equal a 0.8-trust agent gains 0.8× what a 1.0-trust agent gains;
  ``(1 − c)`` keeps confidence under 1. ``w`` is 1 for independent evidence and
  ``correlated_weight`` when the agent shares a source with an earlier asserter (both
  ``told_by`` the same agent, or told by that asserter, or the asserter told by it) —
  whatever their trust. An agent that asserted the memory before adds nothing.
- **The session cap:** what one agent adds, over all memories, within one session
  window (``session_minutes``, aligned to the clock) is capped at ``session_cap``.
- **Quarantine:** an assertion made in quarantine never lifts a memory above
  ``quarantine_cap``; a memory whose every assertion was made in quarantine is flagged.
- **A contradiction** between two claims of one time (a dispute, not a supersession)
  weakens the weaker: ``c ← c × (1 − contradiction_penalty)``; equal claims stay equal.
- **A resolution** weakens the loser: ``c ← c × (1 − resolution_penalty)``.

The domain is the memory's. Confidence is a fold over the namespace's event log in its
order, with the trust in force now: re-running it after a trust change is the re-
evaluation RFC-0011 §6 and §9 ask for, and equals the confidences a store would hold had
that trust been in force from the start.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Union

from graphmem.trust.policy import TrustPolicy

#: trust(agent, domain) -> score in [0, 1]
TrustOf = Callable[[str, "str | None"], float]


@dataclass(frozen=True)
class Assertion:
    """An agent asserted a memory: created it, or a deposit of its merged into it."""

    memory: str
    agent: str
    created: bool
    source: str | None = None  # the agent it was told by
    quarantined: bool = False
    session: str = ""


@dataclass(frozen=True)
class Contradiction:
    a: str
    b: str
    dispute: bool = True  # False: one supersedes the other (both true at their times)


@dataclass(frozen=True)
class Resolution:
    winner: str
    loser: str


Event = Union[Assertion, Contradiction, Resolution]


def session_of(agent: str, now_ms: int, policy: TrustPolicy) -> str:
    """The session window an assertion at ``now_ms`` falls in."""
    return f"{agent}@{now_ms // policy.session_ms}"


@dataclass
class Ledger:
    """Confidences as the events so far leave them."""

    policy: TrustPolicy
    trust_of: TrustOf
    domain_of: Callable[[str], "str | None"]
    confidence: dict[str, float] = field(default_factory=dict)
    #: memory -> [(agent, source)] of every assertion counted, in order
    asserters: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)
    quarantined: dict[str, bool] = field(default_factory=dict)
    session_used: dict[str, float] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)

    def know(self, memory: str, confidence: float | None,
             asserters: Iterable[tuple[str, str | None]], quarantined: bool = False) -> None:
        """Start from a memory's stored state (the incremental path)."""
        self.confidence[memory] = self.policy.initial if confidence is None else confidence
        self.asserters[memory] = list(asserters)
        self.quarantined[memory] = quarantined

    def apply(self, event: Event) -> float:
        """Fold one event in; returns the confidence it added (or removed)."""
        if isinstance(event, Assertion):
            return self._assert(event)
        if isinstance(event, Contradiction):
            return self._contradict(event)
        return self._resolve(event)

    def _assert(self, e: Assertion) -> float:
        p = self.policy
        trust = self.trust_of(e.agent, self.domain_of(e.memory))
        self.changed.add(e.memory)
        if e.created or e.memory not in self.confidence:
            c = p.initial * trust if e.created else p.initial
            if e.quarantined:
                c = min(c, p.quarantine_cap)
            self.confidence[e.memory] = c
            self.asserters[e.memory] = [(e.agent, e.source)]
            self.quarantined[e.memory] = e.quarantined and e.created
            return c
        before = self.confidence[e.memory]
        prior = self.asserters.setdefault(e.memory, [])
        if any(agent == e.agent for agent, _ in prior):
            return 0.0  # the same agent again is not new evidence
        correlated = e.source is not None and any(
            e.source in (agent, source) for agent, source in prior) or any(
            source == e.agent for _, source in prior)
        gain = p.gamma_base * trust * (1.0 - before) * (p.correlated_weight if correlated
                                                        else 1.0)
        gain = min(gain, max(0.0, p.session_cap - self.session_used.get(e.session, 0.0)))
        if e.quarantined:
            gain = max(0.0, min(before + gain, max(before, p.quarantine_cap)) - before)
        self.session_used[e.session] = self.session_used.get(e.session, 0.0) + gain
        self.confidence[e.memory] = before + gain
        prior.append((e.agent, e.source))
        self.quarantined[e.memory] = self.quarantined.get(e.memory, False) and e.quarantined
        return gain

    def _contradict(self, e: Contradiction) -> float:
        if not e.dispute:
            return 0.0
        ca = self.confidence.setdefault(e.a, self.policy.initial)
        cb = self.confidence.setdefault(e.b, self.policy.initial)
        if abs(ca - cb) < 1e-12:
            return 0.0
        weaker = e.a if ca < cb else e.b
        loss = self.confidence[weaker] * self.policy.contradiction_penalty
        self.confidence[weaker] -= loss
        self.changed.add(weaker)
        return -loss

    def _resolve(self, e: Resolution) -> float:
        c = self.confidence.setdefault(e.loser, self.policy.initial)
        loss = c * self.policy.resolution_penalty
        self.confidence[e.loser] = c - loss
        self.changed.add(e.loser)
        return -loss


def replay(events: Iterable[Event], policy: TrustPolicy, trust_of: TrustOf,
           domain_of: Callable[[str], "str | None"]) -> Ledger:
    """Confidences from scratch: every event, in order, with the trust given."""
    ledger = Ledger(policy, trust_of, domain_of)
    for event in events:
        ledger.apply(event)
    return ledger


def from_log(rows: Iterable[Mapping[str, Any]]) -> list[Event]:
    """The confidence events in event-log rows (``op``, ``agent``, ``memory``,
    ``payload``), in their order: a deposit's assertions, the contradictions noted with
    it (disputes unless the deposit recorded one claim superseding the other), and
    resolutions. Other events do not change confidence."""
    events: list[Event] = []
    superseded: set[frozenset[str]] = set()
    for row in rows:
        payload = row.get("payload") or {}
        if isinstance(payload, str):
            payload = json.loads(payload)
        op = row["op"]
        if op == "deposit":
            superseded = {frozenset(pair) for pair in payload.get("superseded", ())}
            events.extend(Assertion(mid, row["agent"], bool(created), payload.get("source"),
                                    bool(payload.get("quarantined")),
                                    payload.get("session", ""))
                          for mid, created in payload.get("asserted", ()))
        elif op == "contradiction":
            other = str(payload.get("with"))
            events.append(Contradiction(row["memory"], other, dispute=frozenset(
                (row["memory"], other)) not in superseded))
        elif op == "conflict_resolved":
            events.append(Resolution(payload["winner"], payload["loser"]))
    return events

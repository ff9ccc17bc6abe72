"""The checks before an operation, in RFC-0011 §7's order: the namespace permission,
then the agent's identity, then (for assertions) the rate limits. Trust only weighs what
passes all three; it never opens a door a permission keeps shut.

An agent's profile and counters are read in one query (``cypher/trust/agent_state``);
what an admitted write changes in them (its timestamps, nonce, entities) is written by
the write's own guarded statement, so a write that fails changes no counter either.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from graphmem.consensus import new_id
from graphmem.errors import Forbidden, RateLimited, Unauthorized
from graphmem.security import FRESHNESS_MS, Signature, parse_signature, verify
from graphmem.trust.policy import TrustPolicy, level, token_digest
from graphmem.views import NamespaceState, Views, state_of

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS


@dataclass(frozen=True)
class AgentState:
    """An agent's trust profile and counters, as stored."""

    id: str
    known: bool = False
    kind: str | None = None
    permission: str | None = None
    public_key: str | None = None
    created_at: int | None = None
    quarantined_until: int | None = None
    revoked: bool = False
    recent: tuple[int, ...] = ()  # times of its assertions in the last day
    recent_entities: tuple[str, ...] = ()  # "t|entity" of the last hour
    nonces: tuple[str, ...] = ()  # "t|nonce" accepted within the freshness window
    session_key: str | None = None
    session_gain: float = 0.0
    trusts: Mapping[str, float] = field(default_factory=dict)  # domain ("*": default)
    federated: bool = False
    name: str | None = None  # as registered (`register_agent`); None: not read, or none

    @classmethod
    def from_row(cls, agent: str, row: Mapping[str, Any] | None) -> "AgentState":
        if not row or row.get("id") is None:
            return cls(agent)
        trusts = {t["domain"]: float(t["score"]) for t in row.get("trusts") or ()
                  if t and t.get("domain") is not None and t.get("score") is not None}
        return cls(agent, True, row.get("kind"), row.get("permission"), row.get("public_key"),
                   row.get("created_at"), row.get("quarantined_until"),
                   bool(row.get("revoked")), tuple(row.get("recent") or ()),
                   tuple(row.get("recent_entities") or ()), tuple(row.get("nonces") or ()),
                   row.get("session_key"), float(row.get("session_gain") or 0.0), trusts,
                   bool(row.get("federated_from")), row.get("name"))

    def trust(self, domain: str | None, policy: TrustPolicy) -> float:
        """The agent's trust for ``domain``: the domain's score, else its default, else
        the namespace's default (federated agents: the federated default)."""
        if self.revoked:
            return 0.0
        if domain is not None and domain in self.trusts:
            return self.trusts[domain]
        if "*" in self.trusts:
            return self.trusts["*"]
        return policy.federated_trust if self.federated else policy.default_trust

    def quarantined_at(self, now: int) -> bool:
        return self.quarantined_until is not None and now < self.quarantined_until


@dataclass(frozen=True)
class Admission:
    """An admitted operation: who, when, and the agent's counters after it."""

    agent: AgentState
    policy: TrustPolicy
    now: int
    nonce: str | None = None

    @property
    def quarantined(self) -> bool:
        return self.policy.governed and self.agent.quarantined_at(self.now)

    def counters(self, assertions: int, entities: list[str], session_key: str,
                 session_gain: float) -> dict[str, Any]:
        """The agent row the write stores: its counters with this operation in."""
        day = [t for t in self.agent.recent if t > self.now - DAY_MS]
        hour_entities = [e for e in self.agent.recent_entities
                         if int(e.split("|", 1)[0]) > self.now - HOUR_MS]
        nonces = fresh_nonces(self.agent, self.now, self.nonce)
        governed = self.policy.governed  # open namespaces keep no counters
        return {"id": self.agent.id,
                "recent": day + [self.now] * assertions if governed else day,
                "recent_entities": hour_entities + [f"{self.now}|{e}" for e in entities]
                if governed else hour_entities,
                "nonces": nonces, "session_key": session_key,
                "session_gain": session_gain}


def fresh_nonces(agent: AgentState, now: int, nonce: str | None) -> list[str]:
    """The agent's accepted nonces still inside the freshness window, plus ``nonce``."""
    kept = [n for n in agent.nonces if int(n.split("|", 1)[0]) > now - FRESHNESS_MS]
    return kept + ([f"{now}|{nonce}"] if nonce is not None else [])


class Gate:
    """Admits or refuses operations for one ``MemoryGraph``."""

    def __init__(self, views: Views, clock: Callable[[], int]) -> None:
        self._views = views
        self._clock = clock

    def state(self, ns: str, agent: str) -> AgentState:
        return self.read(ns, agent)[1]

    def read(self, ns: str, agent: str) -> tuple[NamespaceState | None, AgentState]:
        """The namespace's state (None if it does not exist) and ``agent``'s, in one
        round trip: what a write reads first."""
        rows = self._views.store.read(self._views.queries["trust/agent_state"],
                                      {"ns": ns, "agent": agent})
        row = rows[0] if rows else None
        return (state_of(row) if row else None), AgentState.from_row(agent, row)

    def admit(self, ns: str, agent: str, policy: TrustPolicy, *, need: str,
              op: Mapping[str, Any] | None = None, signature: str | None = None,
              token: str | None = None, assertions: int = 0,
              state: AgentState | None = None) -> Admission:
        """Check ``agent`` may do ``op`` now (permission, identity, limits), or raise
        Forbidden, Unauthorized or RateLimited; a rate-limit refusal is logged first.
        ``state``: the agent's, where the caller has just read it (`read`)."""
        now = self._clock()
        state = state if state is not None else self.state(ns, agent)
        if state.revoked:
            raise Forbidden(f"agent {agent!r} was revoked in namespace {ns!r}; its "
                            "operations are refused (its past events stay)")
        if policy.governed:
            granted = state.permission or policy.default_permission
            if level(granted) < level(need):
                raise Forbidden(
                    f"agent {agent!r} has {granted.upper()} permission in namespace {ns!r} "
                    f"and this operation needs {need.upper()}; an ADMIN grants it with "
                    "set_permission (trust does not replace a permission)")
        admission = Admission(state, policy, now)
        if not policy.governed:
            return admission
        if need == "read":
            self._check_reader(ns, policy, state, op, signature, token, now)
        elif policy.require_signatures:
            admission = replace(admission, nonce=self._check_signature(ns, state, op,
                                                                       signature, now).nonce)
        if assertions:
            self._check_rate(ns, policy, state, assertions, now)
        return admission

    def _check_signature(self, ns: str, state: AgentState, op: Mapping[str, Any] | None,
                         signature: str | None, now: int) -> Signature:
        if signature is None:
            raise Unauthorized(
                f"namespace {ns!r} requires signed writes and this one carries no "
                "signature; pass signature=graphmem.security.sign(private_key, op) "
                "(unverified writes are not accepted here)")
        parsed = parse_signature(signature)
        if not state.public_key:
            raise Unauthorized(f"agent {state.id!r} has no public key in namespace {ns!r}; "
                               "register it with register_agent(..., public_key=...)")
        verify(state.public_key, op or {}, parsed, now_ms=now)
        if any(n.split("|", 1)[1] == parsed.nonce for n in state.nonces):
            raise Unauthorized("this signature was used before (a replay); sign each "
                               "operation anew")
        return parsed

    def _check_reader(self, ns: str, policy: TrustPolicy, state: AgentState,
                      op: Mapping[str, Any] | None, signature: str | None,
                      token: str | None, now: int) -> None:
        if policy.read_token_sha256 is None:
            return
        if token is not None:
            if token_digest(token) != policy.read_token_sha256:
                raise Unauthorized(f"wrong read token for namespace {ns!r}")
            return
        if signature is not None and state.public_key:
            verify(state.public_key, op or {}, parse_signature(signature), now_ms=now)
            return
        raise Unauthorized(f"namespace {ns!r} needs its read token (token=...) or a signed "
                           "request to read")

    def _check_rate(self, ns: str, policy: TrustPolicy, state: AgentState, count: int,
                    now: int) -> None:
        per_hour, per_day = policy.limits_for(state.kind)
        hour = sum(t > now - HOUR_MS for t in state.recent)
        day = sum(t > now - DAY_MS for t in state.recent)
        if hour + count <= per_hour and day + count <= per_day:
            return
        window, used, limit, oldest = (
            ("hour", hour, per_hour, min(t for t in state.recent if t > now - HOUR_MS))
            if hour + count > per_hour else
            ("day", day, per_day, min(t for t in state.recent if t > now - DAY_MS)))
        retry_after = max(0.0, (oldest + (HOUR_MS if window == "hour" else DAY_MS) - now)
                          / 1000)
        log_events(self._views, ns, [event(
            "rate_limit_violation", state.id, payload={
                "window": window, "used": used, "limit": limit, "attempted": count})], now)
        raise RateLimited(
            f"agent {state.id!r} asserted {used} statements in the last {window} in "
            f"namespace {ns!r}; the limit is {limit} and this operation adds {count}. It "
            f"was rejected and logged; retry in {retry_after:.0f} s", retry_after)


def event(kind: str, actor: str, *, memory: str | None = None,
          payload: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One event-log row (an ``OpLog`` node) as the statements write it."""
    return {"id": new_id("op"), "op": kind, "agent": actor, "memory": memory,
            "payload": json.dumps(dict(payload or {}), sort_keys=True)}


def log_events(views: Views, ns: str, events: list[dict[str, Any]], at: int) -> None:
    """Append events to ``ns``'s log (one guarded write; it advances the version, which
    orders them among the namespace's other events)."""
    views.ensure_namespace(ns)
    views.guarded(ns, "trust/log_events", {"events": events, "at": at}, sync=False)


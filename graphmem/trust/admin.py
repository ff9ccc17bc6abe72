"""Trust administration: policies, profiles, permissions, quarantine, revocation,
conflicts and the event log of a namespace.

Every act is one write guarded by the namespace version, logged as an event with who
did it. Acts that change trust (``set_trust``, ``revoke``) re-evaluate confidence in the
same write: the namespace's confidence events are replayed with the new trust
(graphmem.trust.confidence), and every memory whose confidence, quarantine flag or
epistemic state changes is rewritten. Nothing is deleted.

Who may act: changing trust, lifting quarantine and revoking need an agent of kind
``human`` or ``process`` (RFC-0011's HUMAN_USER and SYSTEM_PROCESS); resolving a conflict
needs a ``human`` or an arbiter with ADMIN permission. In a governed namespace the actor
also needs ADMIN permission and, where writes are signed, a signature.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from graphmem.consensus import new_id
from graphmem.errors import Forbidden, InvalidInput
from graphmem.models import check_identifier
from graphmem.security import check_public_key
from graphmem.trust.confidence import Event, Ledger, Resolution, from_log, replay
from graphmem.trust.gate import AgentState, Gate, event, fresh_nonces
from graphmem.trust.policy import (ADMIN_KINDS, TrustPolicy, check_domain,
                                   check_permission_name, check_score, level, parse_policy,
                                   policy_json, updated_policy)
from graphmem.views import Views

Embed = Callable[[Sequence[str]], np.ndarray]
NO_CHANGE: dict[str, Any] = {"score": None, "domain": "*", "by": None, "policy": None,
                             "confidence": [], "sessions": [], "nonces": []}


class TrustAdmin:
    """The trust acts on one store, for one ``MemoryGraph``."""

    def __init__(self, views: Views, embed: Embed, clock: Callable[[], int]) -> None:
        self._views = views
        self._store = views.store
        self._queries = views.queries
        self._embed = embed
        self._clock = clock
        self.gate = Gate(views, clock)

    # -- reading ------------------------------------------------------------------

    def policy(self, ns: str) -> TrustPolicy:
        state = self._views.state(ns)
        return parse_policy(state.trust_policy if state else None)

    def profiles(self, ns: str) -> list[dict[str, Any]]:
        """Every agent's trust profile (``graphmem trust show``)."""
        rows = self._store.read(self._queries["trust/all_profiles"], {"ns": ns})
        return [{**r, "trusts": sorted((t for t in r["trusts"] if t),
                                       key=lambda t: t["domain"])} for r in rows]

    def confidence(self, ns: str, memory_id: str) -> float:
        rows = self._store.read(self._queries["trust/memory_trust"],
                                {"ns": ns, "ids": [memory_id]})
        if not rows:
            raise InvalidInput(f"no memory {memory_id!r} in namespace {ns!r}")
        stored = rows[0]["confidence"]
        return self.policy(ns).initial if stored is None else float(stored)

    def events(self, ns: str, *, kinds: Sequence[str] | None = None,
               since: int | None = None, limit: int = 10_000) -> list[dict[str, Any]]:
        """The event log of ``ns`` in order; ``kinds`` are matched case-insensitively
        (``TRUST_SCORE_UPDATE`` and ``trust_score_update`` are one kind)."""
        chosen = None if kinds is None else [str(k).lower() for k in kinds]
        rows = self._store.read(self._queries["trust/events"],
                                {"ns": ns, "kinds": chosen, "since": since, "limit": limit})
        return [{**r, "payload": json.loads(r["payload"]) if r.get("payload") else {}}
                for r in rows]

    def conflicts(self, ns: str, *, unresolved: bool = True,
                  limit: int = 1000) -> list[dict[str, Any]]:
        return self._store.read(self._queries["trust/conflicts"],
                                {"ns": ns, "unresolved": unresolved, "limit": limit})

    # -- the replay ---------------------------------------------------------------

    def replay(self, ns: str, profiles: Mapping[str, AgentState] | None = None) -> Ledger:
        """Confidence of every memory with events, from the log, with the trust in force
        (or ``profiles`` in place of the stored ones)."""
        return self._replay(ns, {**self._agent_states(ns), **(profiles or {})})

    def _replay(self, ns: str, stored: Mapping[str, AgentState]) -> Ledger:
        """The replay with every agent's state given (none read here)."""
        policy = self.policy(ns)
        view = self._views.synced(ns)

        def trust_of(agent: str, domain: str | None) -> float:
            return stored.get(agent, AgentState(agent)).trust(domain, policy)

        def domain_of(mid: str) -> str | None:
            record = view.records.get(mid)
            return (record.domain if record else None) or policy.default_domain

        return replay(self._replay_events(ns), policy, trust_of, domain_of)

    def _agent_states(self, ns: str) -> dict[str, AgentState]:
        rows = self._store.read(self._queries["trust/all_profiles"], {"ns": ns})
        return {r["id"]: AgentState.from_row(r["id"], r) for r in rows}

    def _replay_events(self, ns: str) -> list[Event]:
        return from_log(self._store.read(self._queries["trust/replay_events"], {"ns": ns}))

    def _reevaluation(self, ns: str, profiles: Mapping[str, AgentState]) -> dict[str, Any]:
        """The rows a trust change rewrites: confidences that differ from the stored
        ones under a replay with ``profiles``, and the agents' session gains."""
        stored = {**self._agent_states(ns), **profiles}
        ledger = self._replay(ns, stored)
        view = self._views.synced(ns)
        rows = []
        for mid, value in ledger.confidence.items():
            record = view.records.get(mid)
            if record is None:
                continue
            by = [a for a, _ in ledger.asserters.get(mid, ())]
            epistemic = ("unverified" if by and all(stored.get(a, AgentState(a)).revoked
                                                    for a in by) else "asserted")
            quarantined = ledger.quarantined.get(mid, False)
            if record.confidence is None or abs(record.confidence - value) > 1e-12 \
                    or record.quarantined != quarantined or record.epistemic != epistemic:
                rows.append({"id": mid, "confidence": value, "quarantined": quarantined,
                             "epistemic": epistemic})
        sessions = [{"id": a.id, "gain": ledger.session_used[a.session_key]}
                    for a in stored.values()
                    if a.session_key and a.session_key in ledger.session_used]
        return {"confidence": rows, "sessions": sessions}

    # -- acts ---------------------------------------------------------------------

    def actor(self, ns: str, by: str, *, kinds: Sequence[str] | None = ADMIN_KINDS,
              op: Mapping[str, Any] | None = None, signature: str | None = None,
              policy: TrustPolicy | None = None) -> tuple[AgentState, str | None]:
        """``by`` if it may administer ``ns`` (and the nonce its signature used), else
        Forbidden or Unauthorized."""
        check_identifier(by, "by")
        policy = policy or self.policy(ns)
        state = self.gate.state(ns, by)
        if not state.known:
            raise Forbidden(f"{by!r} is not an agent of namespace {ns!r}; register it (kind "
                            f"{' or '.join(kinds or ADMIN_KINDS)}) before it acts")
        admin = policy.governed and level(state.permission) >= level("admin")
        if kinds is not None and state.kind not in kinds and not (
                admin and "arbiter" in kinds):
            raise Forbidden(f"{by!r} is of kind {state.kind!r}; this act needs an agent of "
                            f"kind {' or '.join(k for k in kinds if k != 'arbiter')}"
                            + (" or an arbiter with ADMIN permission" if "arbiter" in kinds
                               else ""))
        admission = self.gate.admit(ns, by, policy, need="admin", op=op, signature=signature)
        return state, admission.nonce

    def set_policy(self, ns: str, by: str, settings: Mapping[str, Any], *,
                   op: Mapping[str, Any] | None, signature: str | None) -> TrustPolicy:
        """Set (and turn on) ``ns``'s trust policy. The first policy is set by a human or
        process agent, which becomes the namespace's first ADMIN."""
        self._views.ensure_namespace(ns)
        current = self.policy(ns)
        chosen = updated_policy(current, dict(settings))
        # the first policy: a human or process agent governs the namespace and becomes
        # its first ADMIN; after that only an ADMIN changes it
        state, nonce = self.actor(ns, by, op=op, signature=signature, policy=current)
        changes = {k: v for k, v in chosen.model_dump().items()
                   if getattr(current, k) != v and k != "read_token_sha256"}
        profile = {} if current.governed else {"permission": "admin"}
        self._change(ns, by, profile, [event("policy", by, payload={
            "changes": changes, "token_changed": chosen.read_token_sha256
            != current.read_token_sha256})], policy=policy_json(chosen),
            nonces=self._nonces(state, nonce))
        return chosen

    def register(self, ns: str, agent: str, *, kind: str | None, name: str | None,
                 public_key: str | None, by: str | None, op: Mapping[str, Any] | None,
                 signature: str | None) -> dict[str, Any] | None:
        """The trust side of registering an agent: its key, and in a governed namespace
        the admin's say-so and a quarantine that starts now. None: nothing to do."""
        policy = self.policy(ns)
        if public_key is not None:
            check_public_key(public_key)
        if not policy.governed and public_key is None:
            return None
        existing = self.gate.state(ns, agent)
        nonce_rows: list[dict[str, Any]] = []
        if policy.governed:
            if by is None:
                raise Forbidden(f"namespace {ns!r} is governed: an ADMIN registers agents "
                                "(register_agent(..., by=admin))")
            admin, nonce = self.actor(ns, by, kinds=None, op=op, signature=signature,
                                      policy=policy)
            nonce_rows = self._nonces(admin, nonce)
        elif existing.public_key and public_key != existing.public_key:
            raise Forbidden(f"agent {agent!r} already has a public key; only an ADMIN of a "
                            "governed namespace may replace it")
        now = self._clock()
        profile: dict[str, Any] = {k: v for k, v in (("kind", kind), ("name", name),
                                                     ("public_key", public_key)) if v}
        events = []
        if policy.governed and not existing.known and policy.quarantine_ms > 0:
            profile["quarantined_until"] = now + policy.quarantine_ms
            events.append(event("quarantine", by or agent, payload={
                "agent": agent, "until": profile["quarantined_until"]}))
        events.append(event("agent_registered", by or agent, payload={
            "agent": agent, "kind": kind, "signs": bool(public_key)}))
        self._change(ns, agent, profile, events, nonces=nonce_rows, by=by)
        return profile

    def set_trust(self, ns: str, agent: str, score: float, *, domain: str | None, by: str,
                  op: Mapping[str, Any] | None, signature: str | None) -> dict[str, Any]:
        check_identifier(agent, "agent")
        score = check_score(score)
        key = "*" if domain is None else check_domain(domain)
        actor, nonce = self.actor(ns, by, op=op, signature=signature)
        target = self.gate.state(ns, agent)
        if not target.known:
            raise InvalidInput(f"no agent {agent!r} in namespace {ns!r}; register it first")
        old = target.trusts.get(key)
        changed = AgentState(**{**target.__dict__, "trusts": {**target.trusts, key: score}})
        rows = self._reevaluation(ns, {agent: changed})
        profile = {"default_trust": score} if key == "*" else {}
        version = self._change(ns, agent, profile, [event(
            "trust_score_update", by, payload={"agent": agent, "domain": key, "old": old,
                                               "new": score,
                                               "reevaluated": len(rows["confidence"])})],
            score=score, domain=key, by=by, nonces=self._nonces(actor, nonce), **rows)
        return {"agent": agent, "domain": key, "score": score, "previous": old,
                "version": version, "reevaluated": len(rows["confidence"])}

    def set_permission(self, ns: str, agent: str, permission: str, *, by: str,
                       op: Mapping[str, Any] | None, signature: str | None) -> None:
        check_identifier(agent, "agent")
        chosen = check_permission_name(permission)
        actor, nonce = self.actor(ns, by, kinds=None, op=op, signature=signature)
        self._change(ns, agent, {"permission": chosen}, [event(
            "permission", by, payload={"agent": agent, "permission": chosen})],
            nonces=self._nonces(actor, nonce))

    def lift_quarantine(self, ns: str, agent: str, *, by: str,
                        op: Mapping[str, Any] | None, signature: str | None) -> None:
        check_identifier(agent, "agent")
        actor, nonce = self.actor(ns, by, op=op, signature=signature)
        target = self.gate.state(ns, agent)
        if not target.known:
            raise InvalidInput(f"no agent {agent!r} in namespace {ns!r}")
        self._change(ns, agent, {"quarantined_until": self._clock()}, [event(
            "quarantine_lifted", by, payload={"agent": agent,
                                              "was_until": target.quarantined_until})],
            nonces=self._nonces(actor, nonce))

    def revoke(self, ns: str, agent: str, *, by: str, op: Mapping[str, Any] | None,
               signature: str | None) -> dict[str, Any]:
        """Refuse ``agent`` from now on, trust it 0, and re-evaluate everything it
        contributed to; memories it alone asserted become ``unverified``."""
        check_identifier(agent, "agent")
        actor, nonce = self.actor(ns, by, op=op, signature=signature)
        target = self.gate.state(ns, agent)
        if not target.known:
            raise InvalidInput(f"no agent {agent!r} in namespace {ns!r}")
        revoked = AgentState(**{**target.__dict__, "revoked": True})
        rows = self._reevaluation(ns, {agent: revoked})
        unverified = sum(r["epistemic"] == "unverified" for r in rows["confidence"])
        self._change(ns, agent, {"revoked": True, "permission": "none"}, [
            event("trust_score_update", by, payload={
                "agent": agent, "domain": "*", "old": target.trusts.get("*"), "new": 0.0}),
            event("revocation", by, payload={"agent": agent,
                                             "reevaluated": len(rows["confidence"]),
                                             "unverified": unverified})],
            score=0.0, domain="*", by=by, nonces=self._nonces(actor, nonce), **rows)
        return {"agent": agent, "reevaluated": len(rows["confidence"]),
                "unverified": unverified}

    def resolve_conflict(self, ns: str, memory_id: str, winner_id: str, *, by: str,
                         op: Mapping[str, Any] | None, signature: str | None) -> str:
        """Resolve the conflict between ``memory_id`` and ``winner_id`` (or, when they are
        the same, ``memory_id``'s only conflict) in favour of the winner; returns the
        loser's id."""
        check_identifier(memory_id, "memory_id")
        check_identifier(winner_id, "winner_id")
        actor, nonce = self.actor(ns, by, kinds=("human", "arbiter"), op=op,
                                  signature=signature)
        view = self._views.synced(ns)
        record = view.records.get(memory_id)
        if record is None:
            raise InvalidInput(f"no memory {memory_id!r} in namespace {ns!r}")
        if winner_id == memory_id:
            if len(record.conflicts) != 1:
                raise InvalidInput(
                    f"memory {memory_id!r} has {len(record.conflicts)} conflicts; name the "
                    "winner among them (or the other side of the one to resolve)")
            loser, winner = next(iter(record.conflicts)), memory_id
        elif winner_id in record.conflicts:
            loser, winner = memory_id, winner_id
        else:
            raise InvalidInput(f"memories {memory_id!r} and {winner_id!r} are not in conflict")
        policy = self.policy(ns)
        ledger = Ledger(policy, lambda a, d: 1.0, lambda m: None)
        lost = view.records[loser]
        ledger.know(loser, lost.confidence, ())
        ledger.apply(Resolution(winner, loser))
        self._views.guarded(ns, "trust/resolve_conflict", {
            "winner": winner, "loser": loser, "by": by, "at": self._clock(),
            "loser_confidence": ledger.confidence[loser], "op": new_id("op"),
            "payload": json.dumps({"winner": winner, "loser": loser}),
            "nonces": self._nonces(actor, nonce)})
        return loser

    def escalate(self, ns: str, *, actor: str = "graphmem:organiser") -> list[str]:
        """A summary memory for each conflict unresolved past the namespace's TTL that
        has none yet (salience raised; the conflict stays unresolved)."""
        policy = self.policy(ns)
        now = self._clock()
        ttl = int(policy.conflict_ttl_days * 86_400_000)
        due = [c for c in self.conflicts(ns) if not c["supersession"] and not c["summary"]
               and c["noted_at"] is not None and now - int(c["noted_at"]) >= ttl]
        view = self._views.synced(ns)
        made = []
        for c in due:
            since = datetime.fromtimestamp(int(c["noted_at"]) / 1000, tz=timezone.utc)
            text = (f"Unresolved conflict since {since:%Y-%m-%d}: \"{c['a_text']}\" "
                    f"(asserted by {', '.join(c['a_asserted_by'] or ['?'])}, confidence "
                    f"{_shown(c['a_confidence'])}) versus \"{c['b_text']}\" (asserted by "
                    f"{', '.join(c['b_asserted_by'] or ['?'])}, confidence "
                    f"{_shown(c['b_confidence'])}). A person or an arbiter should resolve "
                    "it.")
            owners = sorted(set(view.records[c["a"]].owners) | set(view.records[c["b"]].owners)
                            if c["a"] in view.records and c["b"] in view.records else [])
            summary = new_id("m")
            self._views.guarded(ns, "trust/conflict_summary", {
                "a": c["a"], "b": c["b"], "id": summary, "text": text,
                "embedding": [float(x) for x in self._embed([text])[0]],
                "salience": policy.summary_salience, "domain": policy.default_domain,
                "owners": owners, "at": now, "op": new_id("op"), "actor": actor,
                "payload": json.dumps({"a": c["a"], "b": c["b"],
                                       "noted_at": c["noted_at"]})})
            made.append(summary)
        return made

    # -- writing --------------------------------------------------------------------

    def _change(self, ns: str, agent: str, profile: Mapping[str, Any],
                events: list[dict[str, Any]], **params: Any) -> int | None:
        self._views.ensure_namespace(ns)
        rows = self._views.guarded(ns, "trust/apply_change", {
            **NO_CHANGE, **params, "agent": agent, "profile": dict(profile),
            "events": events, "at": self._clock()})
        return rows[0]["trust_version"] if rows else None

    def _nonces(self, actor: AgentState, nonce: str | None) -> list[dict[str, Any]]:
        if nonce is None:
            return []
        return [{"id": actor.id, "nonces": fresh_nonces(actor, self._clock(), nonce)}]


def _shown(value: Any) -> str:
    return "unknown" if value is None else f"{float(value):.2f}"

"""What trust adds to one deposit: the admission before it is planned, and after it is
planned the confidences it leaves, the depositor's counters, and its events — all
written by the deposit's own guarded statement, so a deposit that fails leaves no
confidence, counter or event behind either.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

from graphmem.consensus import Plan
from graphmem.models import Deposit
from graphmem.trust.confidence import Assertion, Contradiction, Ledger, session_of
from graphmem.trust.gate import HOUR_MS, Admission, AgentState, Gate, event
from graphmem.trust.policy import TrustPolicy, parse_policy
from graphmem.view import NamespaceView
from graphmem.views import Views


class DepositTrust:
    """The trust side of the write path of one ``MemoryGraph``."""

    def __init__(self, views: Views, clock: Callable[[], int]) -> None:
        self._views = views
        self.gate = Gate(views, clock)

    def policy(self, ns: str) -> TrustPolicy:
        state = self._views.state(ns)
        return parse_policy(state.trust_policy if state else None)

    def admit(self, deposit: Deposit, assertions: int, *, op: Mapping[str, Any] | None,
              signature: str | None, policy: TrustPolicy | None = None,
              agent: AgentState | None = None) -> Admission:
        """Permission, identity and rate limits for ``deposit`` (or an error);
        ``policy`` and ``agent`` (its state) where the caller just read them."""
        return self.gate.admit(deposit.ns, deposit.agent, policy or self.policy(deposit.ns),
                               need="write", op=op, signature=signature,
                               assertions=assertions, state=agent)

    def weigh(self, plan: Plan, deposit: Deposit, admission: Admission,
              view: NamespaceView, meanings: Sequence[Any] | None) -> Plan:
        """``plan`` with its confidences, the agent's counters and its trust events."""
        assert plan.rows is not None
        rows, policy, agent, now = plan.rows, admission.policy, admission.agent, admission.now
        domain = deposit.domain or policy.default_domain
        new_ids = {r["id"] for r in rows.new}
        domains = {mid: domain for mid in new_ids}

        def domain_of(mid: str) -> str | None:
            record = view.records.get(mid)
            return domains.get(mid) or (record.domain if record else None) \
                or policy.default_domain

        session = session_of(agent.id, now, policy)
        ledger = Ledger(policy, lambda a, d: agent.trust(d, policy), domain_of)
        ledger.session_used[session] = agent.session_gain if agent.session_key == session \
            else 0.0
        touched = {o.memory_id for o in plan.outcomes} | {m for pair in rows.contradicts
                                                          for m in pair}
        for mid in touched - new_ids:
            record = view.records.get(mid)
            if record is not None:
                sources = record.asserted_from or [""] * len(record.asserted_by)
                ledger.know(mid, record.confidence,
                            [(a, s or None) for a, s in zip(record.asserted_by, sources)],
                            record.quarantined)
        events: list[dict[str, Any]] = []
        gains: dict[str, float] = {}
        created: set[str] = set()
        asserted: list[list[Any]] = []  # [memory, created]: in order, for replays
        for outcome in plan.outcomes:
            mid = outcome.memory_id
            first = outcome.action == "created" and mid not in created
            created.add(mid)
            asserted.append([mid, first])
            gain = ledger.apply(Assertion(mid, agent.id, first, deposit.told_by,
                                          admission.quarantined, session))
            if not first and outcome.action == "merged" and mid not in new_ids:
                gains[mid] = gains.get(mid, 0.0) + gain
        for mid, gain in gains.items():
            events.append(event("reinforcement", agent.id, memory=mid, payload={
                "gain": round(gain, 6), "trust": agent.trust(domain_of(mid), policy),
                "domain": domain_of(mid)}))
        superseded = {frozenset((s["id"], s["by"])) for s in rows.supersede if s.get("by")}
        for a, b in rows.contradicts:
            ledger.apply(Contradiction(a, b, dispute=frozenset((a, b)) not in superseded))
        events.insert(0, event("deposit", agent.id, payload={
            "deposit": plan.deposit_id, "asserted": asserted,
            "source": deposit.told_by, "quarantined": admission.quarantined,
            "session": session, "domain": domain,
            "superseded": sorted([s["id"], s["by"]] for s in rows.supersede if s.get("by"))}))
        entities = _entities(meanings)
        alerts = _alerts(admission, entities, policy) if policy.governed else []
        asserters = {r["id"]: r["props"]["asserted_by"] for r in rows.new}
        asserters.update({u["id"]: u["asserted_by"] for u in rows.updates})
        confidence = []
        for mid in sorted(ledger.changed):
            told = dict(ledger.asserters.get(mid, ()))
            by = asserters.get(mid) or (view.records[mid].asserted_by
                                        if mid in view.records else [])
            confidence.append({"id": mid, "confidence": ledger.confidence[mid],
                               "quarantined": ledger.quarantined.get(mid, False),
                               "asserted_from": [told.get(a) or "" for a in by],
                               "domain": domain_of(mid)})
        actor = admission.counters(len(plan.outcomes), entities, session,
                                   ledger.session_used[session])
        # the deposit's own event first: a replay folds its assertions in before the
        # contradictions consensus noted in the same statement
        oplog = [{**e, "pos": i} for i, e in enumerate([*events, *rows.oplog, *alerts])]
        plan.rows = replace(rows, oplog=oplog, confidence=confidence, actor=[actor])
        return plan


def _entities(meanings: Sequence[Any] | None) -> list[str]:
    """The entities each atom names, one entry per atom that names it."""
    return [m.id for meaning in meanings or () for m in getattr(meaning, "mentions", ())]


def _alerts(admission: Admission, entities: list[str], policy: TrustPolicy) -> list[dict]:
    """A HIGH_VOLUME_ASSERTION_ALERT for each entity this deposit takes over the limit
    of assertions by one agent within an hour (a signal for review, not a block)."""
    now = admission.now
    before: dict[str, int] = {}
    for item in admission.agent.recent_entities:
        t, entity = item.split("|", 1)
        if int(t) > now - HOUR_MS:
            before[entity] = before.get(entity, 0) + 1
    alerts = []
    for entity in dict.fromkeys(entities):
        after = before.get(entity, 0) + entities.count(entity)
        if before.get(entity, 0) <= policy.high_volume < after:
            alerts.append(event("high_volume_assertion_alert", admission.agent.id, payload={
                "entity": entity, "assertions_last_hour": after,
                "limit": policy.high_volume}))
    return alerts

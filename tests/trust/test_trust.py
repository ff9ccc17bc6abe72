"""Trust between agents on a real store (RFC-0011): weighting, permissions before
identity before trust, signatures, rate limits, quarantine, revocation, conflicts."""

from __future__ import annotations

import pytest

from graphmem import MemoryGraph
from graphmem.errors import Forbidden, InvalidInput, RateLimited, Unauthorized
from graphmem.security import generate_keypair, operation, sign
from graphmem.trust.clock import ManualClock
from graphmem.trust.policy import DOMAINS

FACT = "The backup generator is in the east wing basement."


def nodes(g: MemoryGraph) -> int:
    return g.cypher("MATCH (n) RETURN count(n) AS c")[0]["c"]


def test_reinforcement_by_a_0_8_agent_is_0_8_of_a_1_0_agents(tgraph):
    ns = "weights"
    tgraph.register_agent("root", kind="human", ns=ns)
    gains = {}
    for trust, topic in ((1.0, "The pump station opens at six."),
                         (0.8, "The ferry leaves from pier nine.")):
        for agent in (f"origin-{trust}", f"helper-{trust}"):
            tgraph.register_agent(agent, kind="ai", ns=ns)
        tgraph.set_trust(f"helper-{trust}", trust, ns=ns, by="root")
        first = tgraph.remember(f"origin-{trust}", topic, ns=ns).memory_ids[0]
        before = tgraph.confidence(first, ns=ns)
        again = tgraph.remember(f"helper-{trust}", topic, ns=ns)
        assert again.atoms[0].action == "merged"
        gains[trust] = tgraph.confidence(first, ns=ns) - before
    assert gains[0.8] / gains[1.0] == pytest.approx(0.8, abs=1e-9)
    kinds = [e["kind"] for e in tgraph.events(ns=ns)]
    assert kinds.count("reinforcement") == 2 and "trust_score_update" in kinds


def test_a_profile_holds_ten_domains_and_lookups_fall_back_to_the_default(tgraph):
    ns = "domains"
    tgraph.register_agent("root", kind="human", ns=ns)
    tgraph.register_agent("doc", kind="ai", ns=ns)
    for i, domain in enumerate(DOMAINS):
        tgraph.set_trust("doc", round(0.05 + i * 0.08, 2), domain=domain, ns=ns, by="root")
    tgraph.set_trust("doc", 0.3, ns=ns, by="root")
    profile = next(p for p in tgraph.trust_profiles(ns=ns) if p["id"] == "doc")
    assert len([t for t in profile["trusts"] if t["domain"] != "*"]) >= 10
    assert profile["verified_by"] == "root" and profile["trust_version"] == len(DOMAINS) + 1
    medical = tgraph.remember("doc", "Aspirin thins the blood.", ns=ns, domain="medical")
    unknown = tgraph.remember("doc", "The moon orbits the earth.", ns=ns, domain="astronomy")
    hit = tgraph.recall("doc", "aspirin", ns=ns)[0]
    assert hit.trust_domain == "medical"
    assert hit.trust_score == pytest.approx(0.05 + DOMAINS.index("medical") * 0.08)
    assert tgraph.confidence(medical.memory_ids[0], ns=ns) == pytest.approx(0.5 * hit.trust_score)
    assert tgraph.confidence(unknown.memory_ids[0], ns=ns) == pytest.approx(0.5 * 0.3)


def test_trust_never_overrides_a_missing_permission(governed):
    g, ns = governed.g, governed.ns
    key = governed.agent("reader", permission="read", quarantine=False)
    governed.as_admin("set_trust", "reader", 1.0)
    before = nodes(g)
    with pytest.raises(Forbidden, match="needs WRITE"):
        governed.say("reader", key, FACT)
    assert nodes(g) == before
    stranger_key, stranger = generate_keypair()
    g.register_agent("stranger", ns="elsewhere", public_key=stranger)  # another namespace
    with pytest.raises(Forbidden):
        g.recall("stranger", "generator", ns=ns)
    assert g.recall("reader", "generator", ns=ns) == []


def test_writes_without_a_valid_signature_are_refused_and_write_nothing(governed):
    g = governed.g
    key = governed.agent("scout", quarantine=False)
    before = nodes(g)
    with pytest.raises(Unauthorized, match="carries no signature"):
        g.remember("scout", FACT, ns=governed.ns)
    other_key, _ = generate_keypair()
    with pytest.raises(Unauthorized, match="does not match"):
        governed.say("scout", other_key, FACT)
    with pytest.raises(Unauthorized, match="does not match"):  # signed another text
        g.remember("scout", FACT, ns=governed.ns,
                   signature=governed.signed(key, "remember", agent="scout", text="Other."))
    with pytest.raises(Unauthorized, match="malformed"):
        g.remember("scout", FACT, ns=governed.ns, signature="not a signature")
    assert nodes(g) == before
    signature = governed.signed(key, "remember", agent="scout", text=FACT)
    g.remember("scout", FACT, ns=governed.ns, signature=signature)
    after = nodes(g)
    with pytest.raises(Unauthorized, match="replay"):
        g.remember("scout", FACT, ns=governed.ns, signature=signature)
    governed.clock.advance(minutes=11)
    with pytest.raises(Unauthorized, match="window"):
        g.remember("scout", FACT, ns=governed.ns,
                   signature=sign(key, operation("remember", ns=governed.ns, agent="scout",
                                                 text=FACT), now_ms=governed.clock.now
                                  - 11 * 60_000))
    assert nodes(g) == after


def test_an_admin_act_needs_an_admin_and_a_human_or_process(governed):
    key = governed.agent("bot", quarantine=False)
    with pytest.raises(Forbidden, match="kind"):
        governed.g.set_trust("bot", 0.9, ns=governed.ns, by="bot", signature=governed.signed(
            key, "set_trust", agent="bot", score=0.9, by="bot"))
    with pytest.raises(Forbidden):
        governed.g.lift_quarantine("bot", ns=governed.ns, by="nobody")


def test_rate_limits_reject_the_excess_and_log_it(tgraph, clock):
    ns = "limits"
    tgraph.register_agent("admin", kind="human", ns=ns)
    tgraph.set_policy(ns=ns, by="admin", max_per_hour=5, max_per_day=8)
    tgraph.register_agent("chatty", kind="ai", ns=ns, by="admin")
    tgraph.set_permission("chatty", "write", ns=ns, by="admin")
    for i in range(5):
        tgraph.remember("chatty", f"Crate {i} was loaded onto the barge.", ns=ns)
    with pytest.raises(RateLimited, match="limit is 5") as refused:
        tgraph.remember("chatty", "Crate 5 was loaded onto the barge.", ns=ns)
    assert 0 < refused.value.retry_after_s <= 3600
    violations = tgraph.events(ns=ns, kinds=["RATE_LIMIT_VIOLATION"])
    assert len(violations) == 1 and violations[0]["actor"] == "chatty"
    assert violations[0]["payload"]["window"] == "hour"
    clock.advance(hours=1, minutes=1)
    for i in range(3):
        tgraph.remember("chatty", f"Barrel {i} was rolled to the dock.", ns=ns)
    with pytest.raises(RateLimited, match="last day"):
        tgraph.remember("chatty", "Barrel 9 was rolled to the dock.", ns=ns)


def test_new_agents_are_quarantined_until_an_admin_lifts_it(governed):
    g, ns = governed.g, governed.ns
    key = governed.agent("newcomer")
    fresh = governed.say("newcomer", key, FACT).memory_ids[0]
    hit = governed.say("newcomer", key, "The east wing has two exits.")
    assert g.confidence(fresh, ns=ns) == pytest.approx(0.35)
    assert g.recall("newcomer", "backup generator", ns=ns)[0].quarantined
    assert [e["kind"] for e in g.events(ns=ns, kinds=["quarantine"])] == ["quarantine"]
    governed.as_admin("lift_quarantine", "newcomer")
    later = governed.say("newcomer", key, "The west wing has a lift.").memory_ids[0]
    assert g.confidence(later, ns=ns) == pytest.approx(0.5)
    assert g.confidence(hit.memory_ids[0], ns=ns) == pytest.approx(0.35)  # stays capped
    governed.clock.advance(days=2)
    key2 = governed.agent("late")
    assert g.confidence(governed.say("late", key2, "The roof leaks.").memory_ids[0],
                        ns=ns) == pytest.approx(0.35)


def test_many_assertions_about_one_entity_raise_an_alert_not_a_block(governed):
    key = governed.agent("fan", quarantine=False)
    for i in range(12):
        governed.say("fan", key, f"Ophelia picked flower number {i + 1} by the river.")
    alerts = governed.g.events(ns=governed.ns, kinds=["HIGH_VOLUME_ASSERTION_ALERT"])
    assert len(alerts) == 1 and alerts[0]["payload"]["assertions_last_hour"] == 11


def test_revocation_reweights_exactly_as_a_replay_with_the_new_trust(tgraph, tmp_path,
                                                                      embedder, clock):
    ns = "revoke"

    def populate(g: MemoryGraph, *, doomed_trust: float | None) -> list[str]:
        g.register_agent("root", kind="human", ns=ns)
        for agent in ("doomed", "honest", "witness"):
            g.register_agent(agent, kind="ai", ns=ns)
        if doomed_trust is not None:
            g.set_trust("doomed", doomed_trust, ns=ns, by="root")
        ids = []
        for i in range(8):
            fact = f"Shipment {i} arrived at dock {i + 3}."
            ids.append(g.remember("doomed", fact, ns=ns).memory_ids[0])
            if i % 2:
                g.remember("honest", fact, ns=ns, told_by="witness" if i % 4 == 1 else None)
            if i % 3 == 0:
                g.remember("witness", fact, ns=ns)
        ids.append(g.remember("honest", "Dock 2 is closed for repairs.", ns=ns).memory_ids[0])
        g.remember("doomed", "Dock 2 is closed for repairs.", ns=ns)
        return ids

    ids = populate(tgraph, doomed_trust=None)
    report = tgraph.revoke("doomed", ns=ns, by="root")
    # shipments 2 and 4 were asserted by the revoked agent alone
    assert report["reevaluated"] >= 8 and report["unverified"] == 2
    after = {m: tgraph.confidence(m, ns=ns) for m in ids}
    replayed = tgraph.replayed_confidence(ns=ns)
    assert after == pytest.approx({m: replayed[m] for m in ids}, abs=1e-12)
    assert after[ids[2]] == 0.0 and after[ids[1]] > 0.0
    with pytest.raises(Forbidden, match="revoked"):
        tgraph.remember("doomed", "Everything is fine.", ns=ns)
    assert tgraph.events(ns=ns, kinds=["revocation"])[0]["payload"]["agent"] == "doomed"
    [hit] = [h for h in tgraph.recall("doomed", "Shipment 2 arrived at dock 5", ns=ns)
             if h.memory_id == ids[2]]
    assert hit.epistemic == "unverified" and hit.trust_score == 0.0
    # a store where the agent had trust 0 from the start holds the same confidences
    other = MemoryGraph.open(data_dir=tmp_path / "scratch", embedder=embedder,
                             clock=ManualClock(clock.now))
    try:
        fresh = populate(other, doomed_trust=0.0)
        assert [other.confidence(m, ns=ns) for m in fresh] == pytest.approx(
            [after[m] for m in ids], abs=1e-12)
    finally:
        other.close()


def test_both_sides_of_a_conflict_stay_and_the_more_credible_ranks_first(tgraph, clock):
    ns = "dispute"
    tgraph.register_agent("boss", kind="human", ns=ns)
    for agent in ("reliable", "shaky", "asker"):
        tgraph.register_agent(agent, kind="ai", ns=ns)
    tgraph.set_trust("shaky", 0.3, ns=ns, by="boss")
    at = "2026-01-01"
    good = tgraph.remember("reliable", "The bridge on Mill Road is open.", ns=ns, at=at,
                           witnesses=["asker"]).memory_ids[0]
    bad = tgraph.remember("shaky", "The bridge on Mill Road is not open.", ns=ns, at=at,
                          witnesses=["asker"])
    assert good in bad.atoms[0].contradicts
    hits = tgraph.recall("asker", "Is the bridge on Mill Road open?", ns=ns)
    assert [h.memory_id for h in hits[:2]] == [good, bad.memory_ids[0]]
    assert hits[0].conflicts == [bad.memory_ids[0]] and hits[0].confidence > hits[1].confidence
    assert hits[1].asserted_by == ["shaky"] and hits[1].trust_score == pytest.approx(0.3)
    [conflict] = tgraph.conflicts(ns=ns)
    assert not conflict["resolved"]
    # past the TTL, maintenance writes a summary that names it; nothing resolves it
    assert tgraph.maintain(ns=ns)["conflict_summaries"] == 0
    clock.advance(days=31)
    assert tgraph.maintain(ns=ns)["conflict_summaries"] == 1
    assert tgraph.maintain(ns=ns)["conflict_summaries"] == 0
    summary = tgraph.cypher("MATCH (s:Memory {ns: $ns, kind: 'summary'}) RETURN s.salience "
                            "AS salience, s.text AS text", {"ns": ns})[0]
    assert summary["salience"] == pytest.approx(0.70) and "Mill Road" in summary["text"]
    assert not tgraph.conflicts(ns=ns)[0]["resolved"]
    with pytest.raises(Forbidden):
        tgraph.resolve_conflict(bad.memory_ids[0], good, ns=ns, by="shaky")
    with pytest.raises(InvalidInput, match="not in conflict"):
        tgraph.resolve_conflict(good, good.replace("m-", "m-x"), ns=ns, by="boss")
    before = tgraph.confidence(bad.memory_ids[0], ns=ns)
    loser = tgraph.resolve_conflict(bad.memory_ids[0], good, ns=ns, by="boss")
    assert loser == bad.memory_ids[0]
    assert tgraph.confidence(loser, ns=ns) == pytest.approx(before * 0.5)
    assert tgraph.conflicts(ns=ns) == []
    resolved = tgraph.events(ns=ns, kinds=["conflict_resolved"])
    assert resolved[0]["actor"] == "boss" and resolved[0]["payload"]["winner"] == good
    assert tgraph.replayed_confidence(ns=ns)[loser] == pytest.approx(before * 0.5)


def test_events_are_ordered_and_filterable(tgraph):
    ns = "log"
    tgraph.register_agent("root", kind="human", ns=ns)
    tgraph.register_agent("a", kind="ai", ns=ns)
    tgraph.remember("a", FACT, ns=ns)
    tgraph.set_trust("a", 0.5, ns=ns, by="root")
    log = tgraph.events(ns=ns)
    assert [e["kind"] for e in log] == ["deposit", "trust_score_update"]
    assert [e["seq"] for e in log] == sorted(e["seq"] for e in log)
    assert tgraph.events(ns=ns, kinds=["DEPOSIT"])[0]["actor"] == "a"
    assert tgraph.events(ns=ns, since="2100-01-01") == []


def test_bad_trust_input_is_refused_with_what_to_do(tgraph):
    ns = "bad"
    tgraph.register_agent("root", kind="human", ns=ns)
    tgraph.register_agent("a", kind="ai", ns=ns)
    with pytest.raises(InvalidInput, match=r"\[0, 1\]"):
        tgraph.set_trust("a", 1.5, ns=ns, by="root")
    with pytest.raises(InvalidInput, match="no agent"):
        tgraph.set_trust("ghost", 0.5, ns=ns, by="root")
    with pytest.raises(InvalidInput, match="permission"):
        tgraph.set_permission("a", "superuser", ns=ns, by="root")
    with pytest.raises(InvalidInput, match="unknown trust policy setting"):
        tgraph.set_policy(ns=ns, by="root", max_per_minute=3)
    with pytest.raises(InvalidInput, match="public_key"):
        tgraph.register_agent("b", ns=ns, public_key="abc")


def test_reads_in_a_governed_namespace_need_the_namespace_token(governed):
    token = "a-long-enough-namespace-token"
    governed.as_admin("set_policy", read_token=token)
    key = governed.agent("analyst", quarantine=False)
    governed.say("analyst", key, FACT)
    with pytest.raises(Unauthorized, match="read token"):
        governed.g.recall("analyst", "generator", ns=governed.ns)
    with pytest.raises(Unauthorized, match="wrong read token"):
        governed.g.recall("analyst", "generator", ns=governed.ns, token="x" * 20)
    assert governed.g.recall("analyst", "generator", ns=governed.ns, token=token)


def test_a_flood_in_quarantine_leaves_no_false_claim_above_half(tgraph, clock):
    """RFC-0011 §13's poisoning test at a small scale (benchmarks/trust_bench.py runs it
    at 500 claims and the default limits): sybils in quarantine repeat and reinforce
    false claims at the maximum rate; the excess is refused and counted."""
    ns = "poison"
    tgraph.register_agent("admin", kind="human", ns=ns)
    tgraph.set_policy(ns=ns, by="admin", max_per_hour=10, max_per_day=30)
    tgraph.register_agent("keeper", kind="ai", ns=ns, by="admin")
    tgraph.set_permission("keeper", "write", ns=ns, by="admin")
    tgraph.lift_quarantine("keeper", ns=ns, by="admin")
    truth = tgraph.remember("keeper", "The vault code changes every Monday.", ns=ns,
                            at="2026-01-01").memory_ids[0]
    sybils = [f"sybil-{i}" for i in range(3)]
    for s in sybils:
        tgraph.register_agent(s, kind="ai", ns=ns, by="admin")
        tgraph.set_permission(s, "write", ns=ns, by="admin")
    rejected, false_ids = 0, set()
    for _ in range(4):
        for i in range(12):  # more than the hourly limit, every hour
            for s in sybils:
                try:
                    r = tgraph.remember(s, f"The vault code is {1000 + i} today.", ns=ns)
                    false_ids.update(r.memory_ids)
                except RateLimited:
                    rejected += 1
        clock.advance(hours=1)
    assert rejected > 0
    assert len(tgraph.events(ns=ns, kinds=["RATE_LIMIT_VIOLATION"])) == rejected
    assert max(tgraph.confidence(m, ns=ns) for m in false_ids) <= 0.35 + 1e-12
    assert tgraph.confidence(truth, ns=ns) == pytest.approx(0.5)


def test_who_trusts_whom_and_who_said_it_in_cypher(tgraph):
    ns = "audit"
    tgraph.register_agent("root", kind="human", ns=ns)
    tgraph.register_agent("medic", kind="ai", ns=ns)
    tgraph.set_trust("medic", 0.9, domain="medical", ns=ns, by="root")
    tgraph.set_trust("medic", 0.2, ns=ns, by="root")
    tgraph.remember("medic", "The patient in bed four is allergic to penicillin.", ns=ns,
                    domain="medical")
    rows = tgraph.query("who_knew/who_trusts", {"ns": ns, "domain": "medical", "limit": 10})
    assert {(r["verifier"], r["agent"], r["domain"], r["score"]) for r in rows} == {
        ("root", "medic", "medical", 0.9), ("root", "medic", "*", 0.2)}
    [said] = tgraph.query("who_knew/said_by", {"ns": ns, "text": "penicillin", "limit": 10})
    assert said["agent"] == "medic" and said["domain"] == "medical"
    assert said["confidence"] == pytest.approx(0.45)
    assert {t["domain"] for t in said["trusts"]} == {"medical", "*"}


def test_a_quarantined_newcomer_cannot_retire_an_established_fact(governed):
    g, ns = governed.g, governed.ns
    keeper = governed.agent("keeper", quarantine=False)
    stranger = governed.agent("stranger")
    governed.agent("reader", permission="read", quarantine=False)
    fact = "The bridge on Mill Road is open."
    old = governed.say("keeper", keeper, fact, at="2026-01-01", witnesses=["reader"])
    new = governed.say("stranger", stranger, "The bridge on Mill Road is not open.",
                       at="2026-01-05", witnesses=["reader"])
    assert old.memory_ids[0] in new.atoms[0].contradicts
    hits = g.recall("reader", "Is the bridge on Mill Road open?", ns=ns)
    assert [h.memory_id for h in hits[:2]] == [old.memory_ids[0], new.memory_ids[0]]
    assert hits[1].quarantined and hits[1].status == "current"
    assert hits[0].status == "superseded"  # the record says so; the order weighs trust


def test_a_recall_sees_trust_another_handle_changed(tmp_path, embedder, clock):
    """A handle keeps the trust profiles it read until a write changes one: the next
    recall after another handle sets a score or revokes reads them again."""
    data, ns = tmp_path / "data", "kept"
    with MemoryGraph.open(data_dir=data, embedder=embedder, clock=clock) as a, \
            MemoryGraph.open(data_dir=data, embedder=embedder, clock=clock) as b:
        for agent, kind in (("root", "human"), ("doc", "ai"), ("ben", "ai")):
            a.register_agent(agent, kind=kind, ns=ns)
        a.remember("doc", FACT, ns=ns, witnesses=["ben"])

        def score() -> float:
            hit = a.recall("ben", "Where is the backup generator?", ns=ns)[0]
            assert hit.text == FACT
            return hit.trust_score

        assert score() == score() == 1.0
        b.set_trust("doc", 0.4, ns=ns, by="root")
        assert score() == pytest.approx(0.4)
        b.revoke("doc", ns=ns, by="root")
        assert score() == 0.0

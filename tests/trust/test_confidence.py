"""The confidence rule (graphmem.trust.confidence) on its own: RFC-0011 §4's trust
factor, the independence discount, the session cap, quarantine, contradictions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from graphmem.trust.confidence import (Assertion, Contradiction, Ledger, Resolution,
                                       from_log, replay)
from graphmem.trust.policy import TrustPolicy

POLICY = TrustPolicy()


def ledger(trust: dict[str, float] | None = None, policy: TrustPolicy = POLICY) -> Ledger:
    scores = trust or {}
    return Ledger(policy, lambda agent, domain: scores.get(agent, 1.0), lambda m: "general")


def boost(trust: float) -> float:
    book = ledger({"r": trust})
    book.apply(Assertion("m", "a", True, session="a@1"))
    return book.apply(Assertion("m", "r", False, session="r@1"))


def test_a_0_8_trust_agent_gains_0_8_times_what_a_1_0_agent_gains():
    assert boost(0.8) / boost(1.0) == pytest.approx(0.8, abs=1e-12)
    assert boost(1.0) > 0


@given(st.floats(0.01, 1.0), st.floats(0.01, 1.0))
def test_the_trust_factor_is_exact_for_any_two_trusts(t1, t2):
    assert boost(t1) / boost(t2) == pytest.approx(t1 / t2, rel=1e-9)


def test_common_source_is_discounted_whatever_the_trust():
    independent, correlated = ledger(), ledger()
    for book in (independent, correlated):
        book.apply(Assertion("m", "a", True, source="rumour", session="a@1"))
    gain_free = independent.apply(Assertion("m", "b", False, source=None, session="b@1"))
    gain_shared = correlated.apply(Assertion("m", "b", False, source="rumour", session="b@1"))
    assert gain_shared == pytest.approx(gain_free * POLICY.correlated_weight)
    told_by_first = ledger()
    told_by_first.apply(Assertion("m", "a", True, session="a@1"))
    assert told_by_first.apply(Assertion("m", "b", False, source="a", session="b@1")) == \
        pytest.approx(gain_free * POLICY.correlated_weight)


def test_the_same_agent_again_adds_nothing():
    book = ledger()
    book.apply(Assertion("m", "a", True, session="a@1"))
    assert book.apply(Assertion("m", "a", False, session="a@1")) == 0.0


def test_one_agents_gain_per_session_is_capped():
    book = ledger(policy=TrustPolicy(gamma_base=1.0))
    gained = 0.0
    for i in range(20):
        book.apply(Assertion(f"m{i}", f"creator{i}", True, session=f"c{i}@1"))
        gained += book.apply(Assertion(f"m{i}", "pusher", False, session="pusher@1"))
    assert gained == pytest.approx(POLICY.session_cap)
    assert book.apply(Assertion("m0", "other", False, session="other@1")) > 0
    book.apply(Assertion("m19", "creator18", False, session="creator18@1"))
    # a new session window starts afresh
    book.apply(Assertion("fresh", "x", True, session="x@1"))
    assert book.apply(Assertion("fresh", "pusher", False, session="pusher@2")) > 0


def test_quarantine_caps_what_an_assertion_can_reach():
    book = ledger()
    book.apply(Assertion("m", "q1", True, quarantined=True, session="q1@1"))
    for i in range(2, 30):
        book.apply(Assertion("m", f"q{i}", False, quarantined=True, session=f"q{i}@1"))
    assert book.confidence["m"] <= POLICY.quarantine_cap + 1e-12
    assert book.quarantined["m"]
    book.apply(Assertion("m", "trusted", False, session="t@1"))
    assert book.confidence["m"] > POLICY.quarantine_cap
    assert not book.quarantined["m"]


def test_a_dispute_weakens_the_weaker_and_a_supersession_weakens_nobody():
    book = ledger({"low": 0.4})
    book.apply(Assertion("true", "high", True, session="h@1"))
    book.apply(Assertion("false", "low", True, session="l@1"))
    before = dict(book.confidence)
    book.apply(Contradiction("false", "true", dispute=False))
    assert book.confidence == before
    book.apply(Contradiction("false", "true"))
    assert book.confidence["true"] == before["true"]
    assert book.confidence["false"] == pytest.approx(
        before["false"] * (1 - POLICY.contradiction_penalty))
    book.apply(Resolution("true", "false"))
    assert book.confidence["false"] < before["false"] * (1 - POLICY.contradiction_penalty)


EVENTS = st.lists(st.one_of(
    st.builds(Assertion, st.sampled_from("mnop"), st.sampled_from("abcd"), st.booleans(),
              st.sampled_from([None, "a", "z"]), st.booleans(), st.sampled_from(["s1", "s2"])),
    st.builds(Contradiction, st.sampled_from("mnop"), st.sampled_from("mnop"), st.booleans()),
    st.builds(Resolution, st.sampled_from("mnop"), st.sampled_from("mnop"))), max_size=60)


@settings(max_examples=200, deadline=None)
@given(EVENTS, st.dictionaries(st.sampled_from("abcd"), st.floats(0.0, 1.0)))
def test_confidence_stays_in_the_unit_interval_and_replays_identically(events, trust):
    first = replay(events, POLICY, lambda a, d: trust.get(a, 1.0), lambda m: None)
    again = replay(events, POLICY, lambda a, d: trust.get(a, 1.0), lambda m: None)
    assert all(0.0 <= c <= 1.0 for c in first.confidence.values())
    assert first.confidence == again.confidence
    assert all(used <= POLICY.session_cap + 1e-12 for used in first.session_used.values())


def test_the_log_rows_fold_into_the_same_events():
    rows = [{"op": "deposit", "agent": "a", "memory": None,
             "payload": '{"asserted": [["m", true], ["n", true]], "session": "a@1",'
                        ' "superseded": [["n", "m"]], "quarantined": false}'},
            {"op": "contradiction", "agent": "a", "memory": "m", "payload": '{"with": "n"}'},
            {"op": "pin", "agent": "a", "memory": "m", "payload": None},
            {"op": "conflict_resolved", "agent": "p", "memory": "n",
             "payload": '{"winner": "m", "loser": "n"}'}]
    assert from_log(rows) == [Assertion("m", "a", True, None, False, "a@1"),
                              Assertion("n", "a", True, None, False, "a@1"),
                              Contradiction("m", "n", dispute=False), Resolution("m", "n")]

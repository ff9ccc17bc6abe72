"""Trust between agents through the service: the same acts, errors and signatures as
in-process (graphmem.service.trust_routes)."""

from __future__ import annotations

import pytest

from graphmem.errors import Forbidden, RateLimited, Unauthorized
from graphmem.security import generate_keypair, operation, sign
from graphmem.trust.policy import TrustPolicy

from .test_service import fresh_ns


def test_a_governed_namespace_through_the_service(client):
    ns = fresh_ns()
    admin_key, admin_public = generate_keypair()
    client.register_agent("admin", kind="human", ns=ns, public_key=admin_public)

    def signed(name, **args):
        return sign(admin_key, operation(name, ns=ns, by="admin", **args))

    policy = client.set_policy(ns=ns, by="admin", require_signatures=True, max_per_hour=2,
                               signature=signed("set_policy", require_signatures=True,
                                                max_per_hour=2))
    assert isinstance(policy, TrustPolicy) and policy.governed and policy.max_per_hour == 2
    key, public = generate_keypair()
    client.register_agent("scout", kind="ai", ns=ns, public_key=public, by="admin",
                          signature=signed("register_agent", agent="scout", kind="ai",
                                           public_key=public))
    with pytest.raises(Forbidden):
        client.remember("scout", "The pass is open.", ns=ns)
    client.set_permission("scout", "write", ns=ns, by="admin",
                          signature=signed("set_permission", agent="scout", level="write"))
    with pytest.raises(Unauthorized):
        client.remember("scout", "The pass is open.", ns=ns)
    texts = ["The pass is open.", "The river is high.", "The bridge is out."]
    done = [client.remember("scout", t, ns=ns, signature=sign(key, operation(
        "remember", ns=ns, agent="scout", text=t))) for t in texts[:2]]
    with pytest.raises(RateLimited):
        client.remember("scout", texts[2], ns=ns, signature=sign(key, operation(
            "remember", ns=ns, agent="scout", text=texts[2])))
    memory = done[0].memory_ids[0]
    assert client.confidence(memory, ns=ns) == pytest.approx(0.35)  # in quarantine
    assert [e["kind"] for e in client.events(ns=ns, kinds=["RATE_LIMIT_VIOLATION"])] == [
        "rate_limit_violation"]
    report = client.revoke("scout", ns=ns, by="admin",
                           signature=signed("revoke", agent="scout"))
    assert report["unverified"] == 2
    assert client.replayed_confidence(ns=ns)[memory] == 0.0
    assert {p["id"] for p in client.trust_profiles(ns=ns)} == {"admin", "scout"}
    assert client.conflicts(ns=ns) == []

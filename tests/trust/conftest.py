"""A real embedded store on a manual clock, and a governed namespace in it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from graphmem import MemoryGraph
from graphmem.security import generate_keypair, operation, sign
from graphmem.trust.clock import ManualClock

START = 1_767_225_600_000  # 2026-01-01


@pytest.fixture
def clock():
    return ManualClock(START)


@pytest.fixture
def tgraph(tmp_path, embedder, clock):
    g = MemoryGraph.open(data_dir=tmp_path / "data", embedder=embedder, clock=clock)
    yield g
    g.close()


@dataclass
class Governed:
    """A governed namespace with a signing human admin."""

    g: MemoryGraph
    clock: ManualClock
    ns: str
    admin_key: str

    def signed(self, private_key: str, name: str, **arguments) -> str:
        return sign(private_key, operation(name, ns=self.ns, **arguments), now_ms=self.clock())

    def as_admin(self, method: str, *args, **kwargs):
        """Call ``g.<method>`` as the admin, signed."""
        names = {"set_trust": ("agent", "score"), "set_permission": ("agent", "level"),
                 "lift_quarantine": ("agent",), "revoke": ("agent",),
                 "resolve_conflict": ("memory_id", "winner_id"), "register_agent": ("agent",)}
        signed_args = dict(zip(names.get(method, ()), args)) | kwargs | {"by": "admin"}
        return getattr(self.g, method)(*args, ns=self.ns, by="admin", signature=self.signed(
            self.admin_key, method, **signed_args), **kwargs)

    def agent(self, agent: str, *, kind: str = "ai", permission: str = "write",
              quarantine: bool = True) -> str:
        """Register a signing agent with ``permission``; returns its private key."""
        private, public = generate_keypair()
        self.as_admin("register_agent", agent, kind=kind, public_key=public)
        self.as_admin("set_permission", agent, permission)
        if not quarantine:
            self.as_admin("lift_quarantine", agent)
        return private

    def say(self, agent: str, key: str, text: str, **kwargs):
        return self.g.remember(agent, text, ns=self.ns, signature=self.signed(
            key, "remember", agent=agent, text=text, **kwargs), **kwargs)


@pytest.fixture
def governed(tgraph, clock):
    private, public = generate_keypair()
    ns = "ops"
    tgraph.register_agent("admin", kind="human", ns=ns, public_key=public)
    tgraph.set_policy(ns=ns, by="admin", require_signatures=True, signature=sign(
        private, operation("set_policy", ns=ns, by="admin", require_signatures=True),
        now_ms=clock()))
    return Governed(tgraph, clock, ns, private)

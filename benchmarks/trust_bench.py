"""RFC-0011 §13's four benchmark tests, and what trust costs a write.

    python benchmarks/trust_bench.py [--size 100000] [--ops 200] [--pairs 25] [--attack-hours 5]
                                     [--revoked 100] [--skip-latency | --only-latency] [--json]
    python benchmarks/trust_bench.py --size 300 --ops 10 --pairs 5 --attack-hours 1 \
                                     --revoked 20    # a quick look, not the reported figures

1. Trust-weighted reinforcement: identical signals from a 0.8-trust and a 1.0-trust
   agent (``--pairs`` of them); the ratio of their confidence gains (RFC: 0.8).
2. Poisoning resistance: a malicious agent, new and so in quarantine, tries 150 false
   claims an hour for five hours (above the default 100/hour and 500/day limits), while
   two sybils repeat its claims to reinforce them; how many are accepted and rejected
   (each rejection logged), and the highest confidence any false claim reaches (RFC:
   none above 0.50). ``--attack-hours 1`` crosses only the hourly limit.
3. Revocation correctness: an agent contributes to 100 memories (``--revoked``; creating
   some, reinforcing others, some told by another agent); it is revoked; the stored
   confidences are compared with a from-scratch replay of the event log with trust 0,
   and with a second store in which the agent had trust 0 from the start.
4. Federated merge: two stores whose agents share ids merge; every federated agent keeps
   a distinct identity, none adopts a trust profile.
5. Cost: remember p95 at ``--size`` memories with verification and trust on (a governed
   namespace, signed writes) against the write path without the trust layer, measured
   in turn on one store; and the open namespace (confidence and the event log, no
   verification) against the same baseline. Signing happens on the client and is
   reported apart.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from graphmem import MemoryGraph
from graphmem.errors import RateLimited
from graphmem.security import generate_keypair, operation, sign
from graphmem.trust.clock import ManualClock

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory_bench import AGENTS, fill, percentile, settle, statement  # noqa: E402

START = 1_767_225_600_000  # 2026-01-01T00:00Z


def reinforcement(root: Path, pairs: int = 25) -> dict[str, Any]:
    """The same deposits in two namespaces, reinforced by a 1.0- and a 0.8-trust agent."""
    clock = ManualClock(START)
    gains: dict[float, list[float]] = {1.0: [], 0.8: []}
    with MemoryGraph.open(data_dir=root / "weights", clock=clock) as g:
        for trust in gains:
            ns = f"weights-{trust}"
            g.register_agent("root", kind="human", ns=ns)
            g.register_agent("origin", kind="ai", ns=ns)
            g.register_agent("helper", kind="ai", ns=ns)
            g.set_trust("helper", trust, ns=ns, by="root")
        for i in range(pairs):
            fact = f"Valve {i} of the cooling line was replaced on day {i + 1}."
            for trust in gains:
                ns = f"weights-{trust}"
                memory = g.remember("origin", fact, ns=ns).memory_ids[0]
                before = g.confidence(memory, ns=ns)
                result = g.remember("helper", fact, ns=ns)
                assert result.atoms[0].action == "merged", result
                gains[trust].append(g.confidence(memory, ns=ns) - before)
            # a new session window for every pair: the session cap (0.40 of gain per
            # agent and session) would otherwise stop the helpers after a few
            clock.advance(minutes=61)
    ratios = [low / high for low, high in zip(gains[0.8], gains[1.0])]
    return {"pairs": len(ratios), "gain_at_1.0": round(gains[1.0][0], 6),
            "gain_at_0.8": round(gains[0.8][0], 6), "ratio_min": round(min(ratios), 9),
            "ratio_max": round(max(ratios), 9), "target": 0.8}


def poisoning(root: Path, hours: int = 5) -> dict[str, Any]:
    ns = "poison"
    clock = ManualClock(START)
    with MemoryGraph.open(data_dir=root / "poison", clock=clock) as g:
        g.register_agent("admin", kind="human", ns=ns)
        g.set_policy(ns=ns, by="admin")  # the RFC's defaults: 100/h, 500/day, 24 h
        g.register_agent("keeper", kind="ai", ns=ns, by="admin")
        g.set_permission("keeper", "write", ns=ns, by="admin")
        g.lift_quarantine("keeper", ns=ns, by="admin")
        truths = [g.remember("keeper", f"Gate {i} opens at {6 + i % 4} in the morning.",
                             ns=ns, at="2026-01-01").memory_ids[0] for i in range(20)]
        truth_before = {m: g.confidence(m, ns=ns) for m in truths}
        attackers = ["mallory", "sybil-1", "sybil-2"]
        for a in attackers:
            g.register_agent(a, kind="ai", ns=ns, by="admin")
            g.set_permission(a, "write", ns=ns, by="admin")
        attempted = accepted = rejected = 0
        false_ids: set[str] = set()

        def attempt(agent: str, claim: str) -> None:
            nonlocal attempted, accepted, rejected
            attempted += 1
            try:
                false_ids.update(g.remember(agent, claim, ns=ns, at="2026-01-01").memory_ids)
                accepted += 1
            except RateLimited:
                rejected += 1

        # mallory tries 150 claims an hour for five hours; every fifth claim the sybils
        # repeat, to reinforce it (all three are new, so in quarantine)
        for hour in range(hours):
            for i in range(150):
                claim = (f"Gate {i % 20} opens at {1 + (i + hour) % 5} at night."
                         if i % 3 == 0 else
                         f"Captain Reyes hid master key {hour}-{i} under mat {i}.")
                attempt("mallory", claim)
                if i % 5 == 0:
                    for sybil in attackers[1:]:
                        attempt(sybil, claim)
                clock.advance(seconds=3600 / 150)
        violations = len(g.events(ns=ns, kinds=["RATE_LIMIT_VIOLATION"]))
        alerts = len(g.events(ns=ns, kinds=["HIGH_VOLUME_ASSERTION_ALERT"]))
        confidences = [g.confidence(m, ns=ns) for m in false_ids - set(truths)]
        truth_after = {m: g.confidence(m, ns=ns) for m in truths}
    return {"attempted": attempted, "accepted": accepted, "rejected": rejected,
            "violations_logged": violations, "high_volume_alerts": alerts,
            "false_memories": len(confidences),
            "max_false_confidence": round(max(confidences), 6),
            "false_above_0.50": sum(c > 0.5 for c in confidences),
            "truths_weakened": sum(truth_after[m] < truth_before[m] - 1e-12 for m in truths),
            "target": "no false claim above 0.50"}


def revocation(root: Path, memories: int = 100) -> dict[str, Any]:
    ns = "revoke"

    def populate(g: MemoryGraph, doomed_trust: float | None) -> list[str]:
        g.register_agent("root", kind="human", ns=ns)
        for a in ("doomed", "peer-1", "peer-2", "rumour"):
            g.register_agent(a, kind="ai", ns=ns)
        if doomed_trust is not None:
            g.set_trust("doomed", doomed_trust, ns=ns, by="root")
        g.set_trust("peer-2", 0.7, ns=ns, by="root")
        touched = []
        for i in range(memories):
            fact = f"Container {i} holds {i % 7 + 2} pallets of grain."
            if i % 4 == 0:  # created by a peer, reinforced by the doomed agent
                touched.append(g.remember("peer-1", fact, ns=ns).memory_ids[0])
                g.remember("doomed", fact, ns=ns)
            else:
                touched.append(g.remember("doomed", fact, ns=ns,
                                          told_by="rumour" if i % 5 == 0 else None)
                               .memory_ids[0])
                if i % 3 == 0:
                    g.remember("peer-2", fact, ns=ns, told_by="rumour" if i % 2 else None)
        return touched

    with MemoryGraph.open(data_dir=root / "revoke", clock=ManualClock(START)) as g:
        ids = populate(g, None)
        report = g.revoke("doomed", ns=ns, by="root")
        stored = {m: g.confidence(m, ns=ns) for m in ids}
        replayed = g.replayed_confidence(ns=ns)
    with MemoryGraph.open(data_dir=root / "scratch", clock=ManualClock(START)) as fresh:
        scratch_ids = populate(fresh, 0.0)
        scratch = [fresh.confidence(m, ns=ns) for m in scratch_ids]
    return {"affected": len(ids), "reevaluated": report["reevaluated"],
            "unverified": report["unverified"],
            "max_diff_vs_log_replay": max(abs(stored[m] - replayed[m]) for m in ids),
            "max_diff_vs_store_with_trust_0_from_start": max(
                abs(stored[m] - s) for m, s in zip(ids, scratch)),
            "target": "both differences 0"}


def federation(root: Path) -> dict[str, Any]:
    ns = "camp"
    stores = []
    for name in ("east", "west"):
        g = MemoryGraph.open(data_dir=root / name, clock=ManualClock(START))
        for a in ("scout", "lead", "medic"):
            g.register_agent(a, kind="ai", ns=ns)
        for i, a in enumerate(("scout", "lead", "medic")):
            g.remember(a, f"The {name} trail marker {i} is painted red.", ns=ns,
                       witnesses=[x for x in ("scout", "lead") if x != a][:1])
        stores.append(g)
    with MemoryGraph.open(data_dir=root / "hub", clock=ManualClock(START)) as hub:
        hub.register_agent("scout", kind="ai", ns=ns)
        hub.remember("scout", "The hub gate closes at dusk.", ns=ns)
        for node, g in zip(("east", "west"), stores):
            hub.federate(g, node_id=node, ns=ns)
        profiles = hub.trust_profiles(ns=ns)
        owners = hub.cypher("MATCH (a:Agent {ns: $ns})-[:OWNS]->(m:Memory {ns: $ns}) "
                            "RETURN a.id AS agent, m.text AS text", {"ns": ns})
    for g in stores:
        g.close()
    ids = [p["id"] for p in profiles]
    expected = {"scout"} | {f"federated:{n}:{a}" for n in ("east", "west")
                            for a in ("scout", "lead", "medic")}
    east_scout = {r["text"] for r in owners if r["agent"] == "federated:east:scout"}
    return {"agents": len(ids), "distinct": len(set(ids)), "expected_present":
            expected <= set(ids), "profiles_adopted": sum(bool(p["trusts"]) for p in profiles
                                                          if p["federated_from"]),
            "east_scout_owns_only_east": all("east" in t for t in east_scout),
            "target": "every id distinct, none adopted"}


def latency(root: Path, size: int, ops: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    ns = "scale"
    times: dict[str, list[float]] = {"no trust layer": [], "open namespace": [],
                                     "no trust layer (2)": [], "governed, signed": []}
    sign_ms: list[float] = []
    with MemoryGraph.open(data_dir=root / "scale") as g, \
            MemoryGraph.open(data_dir=root / "scale", embedder=g.embedder) as bare:
        fill_s = fill(g, ns, size, rng)
        settle(g)
        bare._writer.trust = None  # the write path as it was before trust: the baseline
        for h in (g, bare):
            h.warm(ns)

        def timed(handle: MemoryGraph, label: str, agent: str, text: str, **kw: Any) -> None:
            t = time.perf_counter()
            handle.remember(agent, text, ns=ns, **kw)
            times[label].append((time.perf_counter() - t) * 1000)

        for i in range(ops):
            timed(bare, "no trust layer", rng.choice(AGENTS), f"{statement(rng)} (a{i})")
            timed(g, "open namespace", rng.choice(AGENTS), f"{statement(rng)} (b{i})")
        keys = {}
        admin_private, admin_public = generate_keypair()
        g.register_agent("admin", kind="human", ns=ns, public_key=admin_public)
        g.set_policy(ns=ns, by="admin", require_signatures=True)
        for a in AGENTS:
            private, public = generate_keypair()
            keys[a] = private
            for act, extra in (("register_agent", {"kind": "ai", "public_key": public}),
                               ("set_permission", {"level": "write"}),
                               ("lift_quarantine", {})):
                sig = sign(admin_private, operation(act, ns=ns, agent=a, by="admin", **extra))
                if act == "register_agent":
                    g.register_agent(a, ns=ns, by="admin", signature=sig, **extra)
                elif act == "set_permission":
                    g.set_permission(a, "write", ns=ns, by="admin", signature=sig)
                else:
                    g.lift_quarantine(a, ns=ns, by="admin", signature=sig)
        # the trust layer's own share of each governed remember: its checks before the
        # plan (the agent's state read, the signature) and its weighing after it
        trust, in_trust = g._writer.trust, [0.0]

        def counted(step: Any) -> Any:
            def run(*args: Any, **kwargs: Any) -> Any:
                t = time.perf_counter()
                try:
                    return step(*args, **kwargs)
                finally:
                    in_trust[0] += (time.perf_counter() - t) * 1000
            return run

        assert trust is not None
        trust.admit, trust.weigh = counted(trust.admit), counted(trust.weigh)  # type: ignore
        trust_ms: list[float] = []
        for i in range(ops):
            timed(bare, "no trust layer (2)", rng.choice(AGENTS), f"{statement(rng)} (c{i})")
            agent, text = rng.choice(AGENTS), f"{statement(rng)} (d{i})"
            t = time.perf_counter()
            signature = sign(keys[agent], operation("remember", ns=ns, agent=agent, text=text))
            sign_ms.append((time.perf_counter() - t) * 1000)
            in_trust[0] = 0.0
            timed(g, "governed, signed", agent, text, signature=signature)
            trust_ms.append(in_trust[0])
    p95 = {label: round(percentile(v, 0.95), 2) for label, v in times.items()}
    p50 = {label: round(percentile(v, 0.5), 2) for label, v in times.items()}
    return {"memories": size, "ops_per_arm": ops, "fill_s": round(fill_s, 1),
            "remember_p50_ms": p50, "remember_p95_ms": p95,
            "added_p95_ms_open_vs_none": round(p95["open namespace"] - p95["no trust layer"], 2),
            "added_p95_ms_governed_vs_none": round(
                p95["governed, signed"] - p95["no trust layer (2)"], 2),
            "added_p50_ms_governed_vs_none": round(
                p50["governed, signed"] - p50["no trust layer (2)"], 2),
            "trust_layer_in_governed_remember_ms": {
                "p50": round(percentile(trust_ms, 0.5), 2),
                "p95": round(percentile(trust_ms, 0.95), 2)},
            "client_sign_p95_ms": round(percentile(sign_ms, 0.95), 3),
            "target": "under 2 ms added at p95"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--ops", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--pairs", type=int, default=25,
                        help="reinforcement pairs at each trust (default 25)")
    parser.add_argument("--attack-hours", type=int, default=5,
                        help="hours of the poisoning attack, 150 claims each (default 5)")
    parser.add_argument("--revoked", type=int, default=100,
                        help="memories the revoked agent contributes to (default 100)")
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--only-latency", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="graphmem-trust-") as tmp:
        root = Path(tmp)
        tests = (("trust_weighted_reinforcement", partial(reinforcement, pairs=args.pairs)),
                 ("poisoning_resistance", partial(poisoning, hours=args.attack_hours)),
                 ("revocation_correctness", partial(revocation, memories=args.revoked)),
                 ("federated_merge", federation))
        for name, run in () if args.only_latency else tests:
            started = time.perf_counter()
            results[name] = run(root) | {"seconds": round(time.perf_counter() - started, 1)}
            if not args.json:
                print(name, json.dumps(results[name]), flush=True)
        if not args.skip_latency:
            results["cost"] = latency(root, args.size, args.ops, args.seed)
            if not args.json:
                print("cost", json.dumps(results["cost"]), flush=True)
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

"""Federated merge (RFC-0011 §10): a namespace of another graphmem store joins this one.

- Every agent of the other store becomes ``federated:<node_id>:<agent_id>``: an agent
  called ``scout`` here and ``scout`` there are two identities, never collapsed.
- Trust profiles are not adopted: federated agents are trusted at the policy's
  ``federated_trust`` (0 by default) until local policy assigns them trust, and the
  imported memories' confidences are replayed under that local trust.
- Memories, owners, links and contradictions are copied under namespaced ids; the event
  log is appended in its order, each event with its original time and the merge time.
- Union semantics: federating the same node again adds what is new and changes nothing
  that is there. Entities and story arcs are not copied (the receiving store links its
  own on the next deposits that mention them).

The copy is one statement guarded by the namespace version: all of it lands, or none.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from graphmem.errors import InvalidInput
from graphmem.store.base import Row
from graphmem.trust.confidence import from_log, replay
from graphmem.trust.gate import AgentState, event
from graphmem.trust.policy import TrustPolicy
from graphmem.views import Views

Reader = Callable[[str, dict], list[Row]]  # (query name, params) -> rows
_NODE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
#: memory properties copied as they are (claims too: they read the wordings alone, so a
#: copy need not be parsed again, graphmem.supersession.stored)
_PROPS = ("text", "variants", "kind", "t", "recorded_at", "place", "domain", "salience",
          "forgotten", "pinned", "valid_until", "pos", "claims")


def federated_id(node_id: str, original: str) -> str:
    return f"federated:{node_id}:{original}"


def check_node_id(node_id: object) -> str:
    if not isinstance(node_id, str) or not _NODE.match(node_id):
        raise InvalidInput(f"node_id must be a short name of letters, digits, '.', '_' or "
                           f"'-' (it prefixes every federated id), got {node_id!r}")
    return node_id


def federate(read_source: Reader, views: Views, *, source_ns: str, ns: str, node_id: str,
             policy: TrustPolicy, at: int, actor: str) -> dict[str, int]:
    """Copy ``source_ns`` of the store ``read_source`` reads into ``ns``."""
    node = check_node_id(node_id)

    def rename(agent: str | None) -> str | None:
        return None if agent is None else federated_id(node, agent)

    agents = read_source("trust/export_agents", {"ns": source_ns})
    memories = read_source("trust/export_memories", {"ns": source_ns})
    events = read_source("trust/export_events", {"ns": source_ns})
    if not memories and not agents:
        raise InvalidInput(f"the source store has no namespace {source_ns!r} (or it is empty)")
    ids = {m["id"]: federated_id(node, m["id"]) for m in memories}
    moved = [_moved_event(e, node, ids, rename) for e in events]
    confidences = _confidences(moved, memories, ids, policy)
    rows: dict[str, Any] = {
        "agents": [{"id": rename(a["id"]), "original": a["id"], "kind": a["kind"],
                    "name": a["name"] or a["id"]} for a in agents],
        "memories": [{"id": ids[m["id"]], "embedding": [float(x) for x in m["embedding"]],
                      "props": {**{k: m[k] for k in _PROPS if m.get(k) is not None},
                                "asserted_by": [rename(a) for a in m["asserted_by"] or []],
                                "asserted_from": [rename(s) if s else ""
                                                  for s in m["asserted_from"] or []],
                                "superseded_by": ids.get(m["superseded_by"] or ""),
                                **confidences.get(ids[m["id"]], {})}}
                     for m in memories if m.get("embedding") is not None],
        "owns": [{"agent": rename(o["agent"]), "memory": ids[m["id"]], "since": o["since"],
                  "via": o["via"], "from": rename(o["from"])}
                 for m in memories for o in m["owns"]],
        "links": [[ids[m["id"]], ids[x]] for m in memories for x in m["affiliated"]
                  if x in ids],
        "contradicts": [{"a": ids[m["id"]], "b": ids[c["other"]], "noted_at": c["noted_at"],
                         "resolved": c["resolved"]}
                        for m in memories for c in m["contradicts"] if c and c["other"] in ids],
        "events": moved,
    }
    summary = event("federation", actor, payload={
        "node": node, "source_ns": source_ns, "agents": len(agents),
        "memories": len(memories), "events": len(events)})
    views.ensure_namespace(ns)
    views.guarded(ns, "trust/import_namespace", {
        **rows, "node": node, "at": at, "op": summary["id"], "actor": actor,
        "payload": summary["payload"]})
    return {"agents": len(agents), "memories": len(rows["memories"]),
            "events": len(events)}


def _moved_event(e: Row, node: str, ids: dict[str, str],
                 rename: Callable[[str | None], str | None]) -> dict[str, Any]:
    """An event of the other store under this store's names (ids in its payload too)."""
    payload = json.loads(e["payload"]) if e.get("payload") else {}
    if "asserted" in payload:
        payload["asserted"] = [[ids.get(m, m), created] for m, created in payload["asserted"]]
    if "superseded" in payload:
        payload["superseded"] = [[ids.get(a, a), ids.get(b, b)]
                                 for a, b in payload["superseded"]]
    for key in ("with", "winner", "loser", "a", "b"):
        if isinstance(payload.get(key), str):
            payload[key] = ids.get(payload[key], payload[key])
    for key in ("source", "agent"):
        if isinstance(payload.get(key), str):
            payload[key] = rename(payload[key])
    if isinstance(payload.get("session"), str):
        payload["session"] = f"federated:{node}:{payload['session']}"
    return {"id": federated_id(node, e["id"]), "op": e["op"], "at": e["at"],
            "agent": rename(e["agent"]), "memory": ids.get(e["memory"] or "", e["memory"]),
            "payload": json.dumps(payload, sort_keys=True)}


def _confidences(events: list[dict[str, Any]], memories: list[Row], ids: dict[str, str],
                 policy: TrustPolicy) -> dict[str, dict[str, Any]]:
    """The imported memories' confidences under local trust (federated agents have no
    profile yet: ``federated_trust``), replayed from their own events."""
    domains = {ids[m["id"]]: m.get("domain") or policy.default_domain for m in memories}
    folded = from_log(events)
    federated = AgentState("", federated=True)
    ledger = replay(folded, policy, lambda a, d: federated.trust(d, policy), domains.get)
    return {mid: {"confidence": c, "quarantined": ledger.quarantined.get(mid, False)}
            for mid, c in ledger.confidence.items()}

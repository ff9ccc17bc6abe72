"""The demo: a small multi-agent scene, deposited and then questioned with Cypher."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from importlib import resources
from typing import Any, Callable

from graphmem.api import MemoryGraph
from graphmem.errors import RateLimited
from graphmem.models import to_epoch_ms
from graphmem.writer import parse_at


def load_scene(name: str = "harbour") -> dict[str, Any]:
    """A scene shipped in graphmem/scenes/<name>.json."""
    text = resources.files("graphmem").joinpath(f"scenes/{name}.json").read_text("utf-8")
    return json.loads(text)


def deposit_scene(g: MemoryGraph, scene: dict[str, Any]) -> list[Any]:
    """Register the scene's agents and remember its deposits, in order."""
    ns = scene["ns"]
    for agent in scene["agents"]:
        g.register_agent(agent["id"], kind=agent["kind"], name=agent["name"], ns=ns)
    return [g.remember(d["agent"], d["text"], witnesses=d.get("witnesses", ()),
                       told_by=d.get("told_by"), at=d.get("at"), place=d.get("place"), ns=ns)
            for d in scene["deposits"]]


def question_params(scene: dict[str, Any], question: dict[str, Any]) -> dict[str, Any]:
    params = {"ns": scene["ns"], "limit": 20, **question["params"]}
    if isinstance(params.get("at"), str):
        when = parse_at(params["at"])
        assert when is not None  # a scene's question times are written out
        params["at"] = to_epoch_ms(when)
    return params


def _readable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Epoch-millisecond times shown as ISO text."""
    return [{k: (_iso(v) if k in ("since", "at") and isinstance(v, int) else v)
             for k, v in row.items()} for row in rows]


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M")


def run_demo(g: MemoryGraph, echo: Callable[[str], None], table: Callable) -> dict[str, Any]:
    """Deposit the harbour scene into a fresh namespace and print who knew what."""
    scene = load_scene()
    g.drop_namespace(scene["ns"])
    echo(f"# {scene['title']}: {len(scene['deposits'])} deposits by "
         f"{len(scene['agents'])} agents")
    results = deposit_scene(g, scene)
    merged = sum(a.action == "merged" for r in results for a in r.atoms)
    echo(f"{sum(len(r.atoms) for r in results)} statements, {merged} merged into an "
         "existing memory\n")
    for question in scene["questions"]:
        echo(f"## {question['title']}")
        echo(f"graphmem cypher @{question['query']} " + " ".join(
            f"--param {k}={json.dumps(v)}" for k, v in question_params(scene, question).items()))
        table(_readable(g.query(question["query"], question_params(scene, question))))
        echo("")
    for ask in scene["recall"]:
        echo(f"## {ask['agent']} recalls: {ask['query']}")
        hits = g.recall(ask["agent"], ask["query"], k=3, ns=scene["ns"])
        table([{"text": h.text, "owners": ", ".join(h.owners), "score": round(h.score, 3)}
               for h in hits])
        echo("")
    stats = g.stats(ns=scene["ns"])
    echo("## Store structure")
    table([{k: (round(v, 3) if isinstance(v, float) else v) for k, v in stats.items()}])
    echo("")
    contain_poisoning(g, echo, table)
    return stats


POISON = ["The harbour entrance is not open.", "Ships must not enter the harbour today.",
          "The harbour entrance is not open to ships.", "No ship may enter the harbour.",
          "The harbour is not open for ships today.", "The harbour entrance is shut.",
          "The entrance to the harbour is not open.", "Nobody may sail into the harbour."]


def contain_poisoning(g: MemoryGraph, echo: Callable[[str], None],
                      table: Callable) -> dict[str, Any]:
    """A newcomer floods a governed namespace with a false claim: the excess is refused
    and logged, what it may say is capped by its quarantine, and recall puts the
    trusted claim first with the conflict flagged (RFC-0011)."""
    ns = "demo-trust"
    g.drop_namespace(ns)
    g.register_agent("harbourmaster", kind="human", ns=ns)
    g.set_policy(ns=ns, by="harbourmaster", max_per_hour=5)
    for agent in ("pilot", "stranger"):
        g.register_agent(agent, kind="ai", ns=ns, by="harbourmaster")
        g.set_permission(agent, "write", ns=ns, by="harbourmaster")
    g.lift_quarantine("pilot", ns=ns, by="harbourmaster")
    # the harbour master hears both on the radio: it owns what each says
    g.remember("pilot", "The harbour entrance is open.", ns=ns, at="2024-03-02",
               witnesses=["harbourmaster"])
    refused = 0
    for claim in POISON:
        try:
            g.remember("stranger", claim, ns=ns, at="2024-03-02",
                       witnesses=["harbourmaster"])
        except RateLimited:
            refused += 1
    echo(f"# A newcomer in quarantine floods '{ns}' with {len(POISON)} false claims "
         f"(limit 5 an hour): {refused} refused and logged")
    hits = g.recall("harbourmaster", "Is the harbour entrance open?", k=3, ns=ns)
    table([{"text": h.text, "asserted_by": ", ".join(h.asserted_by),
            "confidence": round(h.confidence or 0.0, 2), "quarantined": h.quarantined,
            "conflicts": len(h.conflicts)} for h in hits])
    log = g.events(ns=ns, kinds=["rate_limit_violation", "quarantine", "contradiction"])
    table([{"kind": e["kind"], "actor": e["actor"], "agent": e["payload"].get("agent", ""),
            "memory": e["memory"] or ""} for e in log[:6]])
    return {"refused": refused, "hits": hits}

"""The demo: a small multi-agent scene, deposited and then questioned with Cypher."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from importlib import resources
from typing import Any, Callable

from graphmem.api import MemoryGraph
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
    return stats

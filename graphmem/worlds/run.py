"""A whole run: sediment, seed, run rounds, measure, checkpoint, resume.

An output directory holds ``events.jsonl`` (every applied action and its result),
``structure.jsonl`` (one row per round, see :mod:`graphmem.worlds.metrics`),
``report.json`` (the run's summary), and, when checkpointing, ``checkpoint/``: the world
state and memory counters (``world.json``) beside the namespace dump (``memory.jsonl``).
A resumed run restores both and continues; it ends as the uninterrupted run would.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.worlds.kernel import Kernel
from graphmem.worlds.memory import WorldMemory
from graphmem.worlds.metrics import overlap_by_conversation, round_row
from graphmem.worlds.model import WorldState
from graphmem.worlds.snapshot import dump_namespace, restore_namespace

Progress = Callable[[int, dict[str, Any]], None]


@dataclass
class RunSpec:
    """What to run: a sedimented world, a design, how far, where to write."""

    world: str
    design: str
    rounds: int
    out: Path
    seed: int = 0
    checkpoint_every: int | None = None
    resume: bool = False
    ns: str | None = None
    eviction: str = "fifo"

    @property
    def namespace(self) -> str:
        return self.ns or f"{self.world}-{self.design}"


def run_world(graph, sediment, policy, spec: RunSpec, *,
              progress: Progress | None = None) -> dict[str, Any]:
    """Run ``spec`` on ``graph`` (opened with the design's write path); returns the report."""
    if spec.rounds < 0:
        raise InvalidInput(f"rounds must not be negative, got {spec.rounds}")
    spec.out.mkdir(parents=True, exist_ok=True)
    memory = WorldMemory(graph, spec.namespace, design=spec.design)
    checkpoint = spec.out / "checkpoint"
    if spec.resume and (checkpoint / "world.json").is_file():
        world, events = resume_from(checkpoint, memory, spec.out)
        if world.meta.get("horizon") != sediment.world.meta.get("horizon"):
            raise InvalidInput(f"{checkpoint} was run with horizon {world.meta.get('horizon')}, "
                               f"not {sediment.world.meta.get('horizon')}: the script differs")
    else:
        if spec.resume:
            raise InvalidInput(f"{checkpoint}: no checkpoint to resume from")
        world, events = fresh_start(sediment, memory, spec)
    kernel = Kernel(world, policy, memory, seed=spec.seed, events=events,
                    on_event=lambda e: append_line(spec.out / "events.jsonl", e))
    for mind in world.minds.values():
        mind.eviction = spec.eviction
    started = time.perf_counter()

    def after(r: int) -> None:
        row = round_row(memory, r, seconds=time.perf_counter() - started).as_dict()
        append_line(spec.out / "structure.jsonl", row)
        if progress:
            progress(r, row)
        if spec.checkpoint_every and (r + 1) % spec.checkpoint_every == 0:
            save_checkpoint(checkpoint, world, memory, len(kernel.events))

    kernel.run(max(spec.rounds - world.round, 0), after_round=after)
    report = summary(spec, world, memory, time.perf_counter() - started)
    (spec.out / "report.json").write_text(json.dumps(report, indent=2, sort_keys=True))
    (spec.out / "world.json").write_text(json.dumps(world.to_dict(), sort_keys=True))
    return report


def fresh_start(sediment, memory: WorldMemory, spec: RunSpec):
    """A new namespace: register the world's entities, deposit the seeded history."""
    for name in ("events.jsonl", "structure.jsonl", "report.json"):
        (spec.out / name).unlink(missing_ok=True)
    world = WorldState.from_dict(sediment.world.to_dict())  # never mutate the sediment
    memory.graph.drop_namespace(memory.ns)
    memory.register(world)
    seeded = memory.seed(sediment.seed)
    append_line(spec.out / "structure.jsonl", {"round": -1, "seeded_entries": seeded,
                                               "seed_deposits": len(sediment.seed)})
    return world, []


def save_checkpoint(directory: Path, world: WorldState, memory: WorldMemory,
                    n_events: int) -> None:
    """World, memory counters and the namespace dump, written side by side."""
    directory.mkdir(parents=True, exist_ok=True)
    dump_namespace(memory.graph, memory.ns, directory / "memory.jsonl")
    state = {"world": world.to_dict(), "events": n_events,
             "seeded_ids": sorted(memory.seeded_ids), "sim_ids": sorted(memory.sim_ids),
             "recalled_rows": memory.recalled_rows, "calls": dict(memory.calls)}
    (directory / "world.json").write_text(json.dumps(state, sort_keys=True))


def resume_from(directory: Path, memory: WorldMemory, out: Path):
    """Restore world, memory and logs as they were at the checkpoint."""
    state = json.loads((directory / "world.json").read_text())
    restore_namespace(memory.graph, memory.ns, directory / "memory.jsonl")
    memory.seeded_ids = set(state["seeded_ids"])
    memory.sim_ids = set(state["sim_ids"])
    memory.recalled_rows = list(state["recalled_rows"])
    memory.calls.update(state["calls"])
    world = WorldState.from_dict(state["world"])
    events = read_lines(out / "events.jsonl")[: state["events"]]
    write_lines(out / "events.jsonl", events)
    rows = [r for r in read_lines(out / "structure.jsonl") if r["round"] < world.round]
    write_lines(out / "structure.jsonl", rows)
    return world, events


def summary(spec: RunSpec, world: WorldState, memory: WorldMemory,
            seconds: float) -> dict[str, Any]:
    """The run's final structure, conversation overlap and action counts."""
    final = round_row(memory, world.round - 1).as_dict()
    conversed = {frozenset((m.sender, r)) for m in world.messages.values()
                 for r in m.recipients if r != m.sender}
    return {"world": spec.world, "design": spec.design, "ns": memory.ns, "seed": spec.seed,
            "rounds": world.round, "seconds": round(seconds, 1), "final": final,
            "overlap": overlap_by_conversation(memory, conversed, world.characters()),
            "calls": dict(sorted(memory.calls.items())),
            "messages": len(world.messages)}


def append_line(path: Path, row: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(row, sort_keys=True, default=str) + "\n")


def read_lines(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, sort_keys=True, default=str) + "\n" for r in rows),
                    encoding="utf-8")

"""``graphmem world``: sediment a story world, run it on a memory design, report runs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click

from graphmem.cli.app import cli, open_graph
from graphmem.cli.render import print_table
from graphmem.configured import load_chat_model
from graphmem.graphs.render import write_views
from graphmem.worlds.llm_policy import LLMPolicy
from graphmem.worlds.memory import graph_design
from graphmem.worlds.policy import ScriptPolicy
from graphmem.worlds.report import growth_chart, load_run, summary_rows, targets
from graphmem.worlds.run import RunSpec, append_line, run_world
from graphmem.worlds.sources import WORLDS
from graphmem.worlds.sources import sediment_world as sediment

DESIGNS = ("consensus", "nomerge", "private", "two-tier", "shared-acl")


@cli.group()
def world() -> None:
    """Story worlds whose characters keep their long-term memory in graphmem."""


@world.command("sediment")
@click.argument("name", type=click.Choice(list(WORLDS)))
@click.option("--data", type=click.Path(path_type=Path), default=None,
              help="The source (Hamlet: hamlet.tei.xml; the novels: chapters JSON lines; "
                   "russia_ukraine: the incidents CSV).")
@click.option("--horizon", type=int, default=None,
              help="Rounds the held-out part of the source is spread over "
                   "(default: Hamlet and russia_ukraine 40, the novels 80).")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Also write the world, seeded deposits and script as JSON.")
def sediment_command(name, data, horizon, out) -> None:
    """Read a source into cast, map, carriers, a seeded store and the policy's script."""
    sed = sediment(name, data, horizon)
    kinds = Counter(e.kind for e in sed.world.entities.values())
    absent = sum(1 for e in sed.world.entities.values() if e.kind == "character" and not e.present)
    print_table([{"characters": kinds["character"], "absent": absent,
                  "environments": kinds["environment"], "carriers": kinds["carrier"],
                  "places": len(sed.world.map.places), "seed_deposits": len(sed.seed),
                  "seed_witnessed": sum(1 for d in sed.seed if d.get("witnesses")),
                  "script_beats": len(sed.script)}])
    if out:
        out.write_text(json.dumps({"world": sed.world.to_dict(), "seed": sed.seed,
                                   "script": [vars(b) for b in sed.script]},
                                  default=str, indent=1))


@world.command("run")
@click.argument("name", type=click.Choice(list(WORLDS)))
@click.option("--design", type=click.Choice(DESIGNS), default="consensus", show_default=True)
@click.option("--rounds", type=int, required=True)
@click.option("--out", type=click.Path(path_type=Path), required=True)
@click.option("--data", type=click.Path(path_type=Path), default=None)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--checkpoint-every", type=int, default=None)
@click.option("--resume", is_flag=True, help="Continue from OUT/checkpoint.")
@click.option("--ns", default=None, help="Namespace (default WORLD-DESIGN).")
@click.option("--eviction", type=click.Choice(["fifo", "relevance", "hybrid"]),
              default="fifo", show_default=True)
@click.option("--horizon", type=int, default=None,
              help="Rounds the held-out part of the source is spread over "
                   "(default: Hamlet and russia_ukraine 40, the novels 80).")
@click.option("--seed-limit", type=int, default=None,
              help="Deposit only the first N seeded memories (quick runs).")
@click.option("--no-recall", is_flag=True, help="The policy does not recall.")
@click.option("--llm", "llm", default=None,
              help="module:factory building a langchain-core chat model that decides for "
                   "the characters (prompt: graphmem/worlds/prompts/decide.md; every call "
                   "logged to OUT/llm.jsonl). Default: the policy following the source.")
@click.pass_context
def run_command(ctx, name, design, rounds, out, data, seed, checkpoint_every, resume, ns,
                eviction, horizon, seed_limit, no_recall, llm) -> None:
    """Run WORLD for ROUNDS rounds on one memory design; writes OUT/report.json,
    structure.jsonl (one row a round), events.jsonl and checkpoints."""

    sed = sediment(name, data, horizon)
    if seed_limit is not None:
        sed.seed = sed.seed[:seed_limit]
    spec = RunSpec(name, design, rounds, out, seed=seed, checkpoint_every=checkpoint_every,
                   resume=resume, ns=ns, eviction=eviction)
    policy: ScriptPolicy | LLMPolicy = ScriptPolicy(sed.script, recall=not no_recall)
    if llm:

        out.mkdir(parents=True, exist_ok=True)
        policy = LLMPolicy(load_chat_model(llm), log=lambda r: append_line(out / "llm.jsonl", r))
    with open_graph(ctx, design=graph_design(design)) as g, \
            click.progressbar(length=rounds, label=f"{name} on {design}", file=None) as bar:
        report = run_world(g, sed, policy, spec, progress=lambda r, row: bar.update(1))
    final = report["final"]
    print_table([{"design": design, "rounds": report["rounds"], "seconds": report["seconds"],
                  **{k: final[k] for k in ("entries_written", "multi_owner_share",
                                           "linked_share", "deepest_merge",
                                           "recall_amplification")}}])


@world.command("report")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
@click.option("--graphs/--no-graphs", default=False,
              help="Also draw each run's case-study graphs (HTML, PNG) from the store.")
@click.pass_context
def report_command(ctx, dirs, graphs) -> None:
    """Structure tables and growth charts of one or more run directories."""

    runs = [load_run(d) for d in dirs]
    rows = summary_rows(runs)
    print_table(rows)
    if len({r["design"] for r in rows}) > 1:  # designs of one world side by side
        for name, value in targets(rows).items():
            click.echo(f"target {name}: {value}")
    chart = dirs[0] / "growth.png"
    growth_chart(runs, chart)
    click.echo(f"growth chart: {chart}")
    if graphs:

        with open_graph(ctx) as g:
            for run in runs:
                for path in write_views(g, run["report"]["ns"], run["dir"]):
                    click.echo(f"graph: {path}")

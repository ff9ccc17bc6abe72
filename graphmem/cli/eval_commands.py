"""``graphmem eval <benchmark>`` and ``graphmem eval report``: the evaluation harness.

    graphmem eval locomo --data ../shared/data/locomo --out runs/locomo [--limit 2]
    graphmem eval prefeval --data ../shared/data/prefeval --out runs/pe10 --distractors 10
    graphmem eval report runs/locomo runs/pe10
"""

from __future__ import annotations

import os
import time
from typing import Any

import click

from graphmem.cli.app import cli
from graphmem.configured import llm_roles, load_chat_model
from graphmem.evaluation.report import compare_runs
from graphmem.evaluation.runner import EvalOptions, run_evaluation
from graphmem.errors import InvalidInput
from graphmem.evaluation.lifecycle import LifecycleOptions, run_lifecycle

BENCHMARKS = ("locomo", "longmemeval", "personamem", "prefeval")


@cli.group(name="eval")
def eval_group() -> None:
    """Evaluate memory on LoCoMo, LongMemEval, PersonaMem, PrefEval (resumable)."""


def parse_k_list(text: str | None) -> tuple[int, ...] | None:
    """``"1,5,10"`` -> (1, 5, 10); every k must be a positive integer."""
    if not text:
        return None
    try:
        ks = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise InvalidInput(f"--k-list must be comma-separated integers, got {text!r}") from None
    if not ks or any(k <= 0 for k in ks):
        raise InvalidInput(f"--k-list needs positive integers, got {text!r}")
    return ks


def _benchmark_command(name: str):
    @eval_group.command(name=name, short_help=f"Evaluate memory on {name} beside the baselines.",
                        help=f"Evaluate memory on {name}: ingest each unit into a "
                        "fresh store, freeze it, ask, score against BM25/dense/RRF baselines.")
    @click.option("--data", required=True, type=click.Path(),
                  help="The benchmark's data (directory or file as the loader reads it).")
    @click.option("--out", required=True, type=click.Path(),
                  help="Run directory: units.jsonl, results.json, results.md, charts.")
    @click.option("--limit", type=int, default=None, help="Evaluate only the first N units.")
    @click.option("--every", type=int, default=1, show_default=True,
                  help="Evaluate every Nth unit: a sample spread over the whole benchmark "
                       "(applied before --limit).")
    @click.option("--llm", default=None,
                  help="A langchain-core chat model that answers and judges questions: "
                       "module:factory (importable from the current directory) or "
                       "provider:model. Default: GRAPHMEM_LLM when GRAPHMEM_LLM_FOR "
                       "includes answer.")
    @click.option("--skip-bad", is_flag=True, help="Leave out bad records instead of failing.")
    @click.option("--seed", type=int, default=None,
                  help="Seed for PrefEval distractors and option order (default: upstream's).")
    @click.option("--k-list", default=None, help="Cut-offs, e.g. 1,5,10,20 (default: the "
                  "benchmark's own).")
    @click.option("--config", default=None, help="RecallConfig preset passed to recall.")
    @click.option("--form", default="explicit", show_default=True,
                  type=click.Choice(["explicit", "implicit-choice", "implicit-persona"]),
                  help="PrefEval preference form.")
    @click.option("--distractors", type=int, default=10, show_default=True,
                  help="PrefEval distractor exchanges between preference and question.")
    @click.option("--topic", "topics", multiple=True, help="PrefEval topic (repeat).")
    @click.option("--systems", default="graphmem,bm25,dense,rrf", show_default=True,
                  help="Systems to compare.")
    @click.option("--no-progress", is_flag=True, help="No progress bars.")
    def command(data, out, limit, every, llm, skip_bad, seed, k_list, config, form, distractors,
                topics, systems, no_progress) -> None:
        if limit is not None and limit <= 0:
            raise InvalidInput(f"--limit must be positive, got {limit}")
        if every < 1:
            raise InvalidInput(f"--every must be 1 or more, got {every}")
        wanted = tuple(s.strip() for s in systems.split(",") if s.strip())
        unknown = set(wanted) - {"graphmem", "bm25", "dense", "rrf"}
        if unknown or not wanted:
            raise InvalidInput(f"--systems: unknown {', '.join(sorted(unknown)) or '(none)'}; "
                               "choose from graphmem, bm25, dense, rrf")
        if llm is None and os.environ.get("GRAPHMEM_LLM") and "answer" in llm_roles():
            llm = os.environ["GRAPHMEM_LLM"]
        chat_model = load_chat_model(llm) if llm else None
        options = EvalOptions(benchmark=name, data=str(data), out=str(out), limit=limit,
                              every=every,
                              skip_bad=skip_bad, seed=seed, ks=parse_k_list(k_list),
                              config=config, llm=llm, form=form, distractors=distractors,
                              topics=tuple(topics), systems=wanted, progress=not no_progress)
        start = time.perf_counter()
        results = run_evaluation(options, chat_model=chat_model)
        click.echo(_summary_line(results, time.perf_counter() - start))

    return command


def _summary_line(results: dict[str, Any], seconds: float) -> str:
    headline = results["headline"]
    parts = [f"{name} {headline}={s.get('overall', {}).get(headline, 0) or 0:.3f}"
             for name, s in results["systems"].items()]
    skipped = results.get("skipped_records", 0)
    return (f"{results['benchmark']}: {results['questions']} questions in {results['units']} "
            f"units; " + "; ".join(parts) + f"; skipped {skipped} bad records; "
            f"{seconds:.1f} s")


for _name in BENCHMARKS:
    _benchmark_command(_name)


@eval_group.command(name="report")
@click.argument("dirs", nargs=-1, required=True, type=click.Path())
def report_command(dirs) -> None:
    """Put several runs side by side (markdown on stdout)."""
    click.echo(compare_runs(list(dirs)), nl=False)


@eval_group.command(name="lifecycle")
@click.option("--out", required=True, type=click.Path(), help="Writes results.json, results.md.")
@click.option("--seeds", default="1,2,3", show_default=True, help="Dialogue seeds, e.g. 1,2,3.")
@click.option("--turns", type=int, default=500, show_default=True)
@click.option("--every", type=int, default=50, show_default=True, help="Checkpoint interval.")
@click.option("--k", type=int, default=5, show_default=True, help="Context items per question.")
@click.option("--no-maintain", is_flag=True, help="Do not run maintain() at checkpoints.")
@click.option("--contradiction-floor", type=float, default=None,
              help="The write path's contradiction floor (WriteConfig; default its own).")
@click.option("--clock", type=click.Choice(["deposit", "recorded"]), default="deposit",
              show_default=True, help="Decay's clock: the dialogue's own times, or the "
              "wall clock of the writes.")
def lifecycle_command(out, seeds, turns, every, k, no_maintain, contradiction_floor,
                      clock) -> None:
    """A scripted planning dialogue with revised, reverted and superseded facts: a
    10-turn window, plain retrieval and graphmem (supersession, maintain) compared."""
    try:
        chosen = tuple(int(part) for part in seeds.split(",") if part.strip())
    except ValueError:
        raise InvalidInput(f"--seeds must be comma-separated integers, got {seeds!r}") from None
    if not chosen or turns <= 0 or every <= 0 or every > turns or k <= 0:
        raise InvalidInput("need --seeds, --turns > 0, 0 < --every <= --turns and --k > 0")
    options = LifecycleOptions(out=str(out), seeds=chosen, turns=turns, every=every, k=k,
                               maintain=not no_maintain,
                               contradiction_floor=contradiction_floor, clock=clock)
    results = run_lifecycle(options, progress=click.echo)
    for name, m in results["summary"].items():
        click.echo(f"{name}: recall {m['recall']['mean']:.3f}, contradiction "
                   f"{m['contradiction']['mean']:.4f} (worst {m['contradiction']['worst']:.4f})")

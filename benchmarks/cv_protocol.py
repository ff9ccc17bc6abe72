"""The honest selection protocol: every cue, weight and channel judged on held-out data.

Folds: leave one LoCoMo conversation out (8 folds), and leave PrefEval topics out (the 16
topics in 4 groups of 4 neighbouring file names, so that a held-out group takes whole
domains with it; the same groups in every form: explicit, implicit-choice,
implicit-persona). Held-out fold F of one benchmark is scored with settings chosen on
everything else (the other folds of that benchmark and all of the others); a PrefEval
topic group held out is held out of every form at once.

Each unit is ingested once (`cv_capture`); recall is then replayed offline for every
candidate configuration (`graphmem.evaluation.captured`), which agrees with live recall
id for id (checked on every question; the count of disagreements is printed).

The rule (`graphmem.evaluation.crossval`): a knob (a classifier cue, a per-kind channel
weight, a channel, affiliated expansion, the classifier itself, the mixing of secondary
kinds) is kept only if choosing its setting on the training folds raises the mean over
held-out folds (averaged over the benchmarks) and lowers no benchmark's worst fold, each
against the knob removed. Metric: LoCoMo recall_all@10 (turns, 20 memories recalled),
PrefEval recall_any@5 (a preference turn among the first 5).

    python benchmarks/cv_protocol.py --work /tmp/graphmem-cv --out /tmp/cv.json

Prints markdown tables: every knob's verdict; per benchmark, per fold and per category,
graphmem (default, and as the protocol selects it, nested) against BM25, dense and RRF.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from cv_capture import capture_all, load_cached
from shared_data import SHARED_DATA

LOCOMO = "locomo"
FORMS = ("explicit", "implicit-choice", "implicit-persona")
N_TOPIC_GROUPS = 4


def plan_units(locomo: Path | None, prefeval: Path | None, *, every: dict[str, int],
               distractors: int, seed: int, other_half: bool = False) -> list[tuple]:
    """(unit, dataset, fold) for every unit the run captures: of each PrefEval topic and
    form, the items whose index is a multiple of ``every[form]`` (with ``other_half``:
    those halfway between them, a slice of the same topics that no selection saw)."""
    from graphmem.ingestion.benchmarks import load_benchmark

    plan: list[tuple] = []
    if locomo is not None:
        for unit in load_benchmark("locomo", locomo, skip_bad=True).units:
            plan.append((unit, LOCOMO, unit.id))
    if prefeval is not None:
        for form in FORMS:
            report = load_benchmark("prefeval", prefeval, form=form,
                                    n_distractors=distractors, seed=seed)
            groups = topic_groups(sorted({u.meta["topic"] for u in report.units}))
            for unit in report.units:
                if unit.meta["index"] % every[form] == (every[form] // 2 if other_half else 0):
                    plan.append((unit, f"prefeval-{form}", groups[unit.meta["topic"]]))
    return plan


def topic_groups(topics: list[str], n: int = N_TOPIC_GROUPS) -> dict[str, str]:
    """Topic -> fold name: sorted topics cut into ``n`` contiguous blocks (a domain's
    topics share a file-name prefix, so a block holds out whole domains)."""
    size = -(-len(topics) // n)
    return {t: f"topics-{i // size + 1}" for i, t in enumerate(topics)}


def only_ids(value: str) -> list[str]:
    """The unit ids ``--only`` names: comma-separated, or one a line of the file named
    after an ``@`` (lines that open with ``#`` are comments)."""
    if value.startswith("@"):
        lines = Path(value[1:]).read_text().splitlines()
        return [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    return [unit_id for unit_id in value.split(",") if unit_id]


def capture(args) -> list:
    from graphmem import MemoryGraph
    from graphmem.evaluation.runner import uncached_embedder

    every = {"explicit": args.prefeval_every, "implicit-choice": args.choice_every,
             "implicit-persona": args.persona_every}
    only = only_ids(args.only) if args.only else None
    if only is not None:  # any item may be named: every one is planned, then picked
        every = dict.fromkeys(every, 1)
    plan = plan_units(args.locomo, args.prefeval, every=every, distractors=args.distractors,
                      seed=args.seed, other_half=args.other_half and only is None)
    if only is not None:  # in the order listed (a slow capture does the folds round robin)
        order = {unit_id: i for i, unit_id in enumerate(only)}
        planned = {p[0].id for p in plan}
        unknown = [u for u in only if u not in planned]
        if unknown:
            raise SystemExit(
                f"--only names {len(unknown)} unit(s) not in the data read: "
                f"{', '.join(unknown[:5])}{' ...' if len(unknown) > 5 else ''}; a unit is "
                "a LoCoMo conversation (conv-26) or a PrefEval item "
                "(prefeval/explicit/education_resources/0), and --no-locomo or "
                "--no-prefeval leaves its benchmark out")
        plan = sorted((p for p in plan if p[0].id in order), key=lambda p: order[p[0].id])
    print(f"{len(plan)} units to capture", file=sys.stderr)
    if args.cached_only:
        return load_cached(plan, args.work / f"captured-d{args.distractors}")
    with MemoryGraph.open(data_dir=args.work / "store") as graph:
        return capture_all(graph, plan, args.work / f"captured-d{args.distractors}",
                           uncached_embedder())


def add_capture_arguments(parser: argparse.ArgumentParser) -> None:
    """``--captures`` and ``--also``, as the scripts that simulate a channel in copies of
    this protocol's captures read them."""
    parser.add_argument("--captures", type=Path, required=True,
                        help="captured-d10 of a cv_protocol run (LoCoMo and PrefEval)")
    parser.add_argument("--also", type=Path, action="append", default=[],
                        help="captured-d300 of a cv_protocol run (may be repeated)")


def captured_units(directory: Path) -> list:
    """Every unit captured in ``directory`` (a ``captured-d<n>``), in file order."""
    import pickle

    return [pickle.loads(path.read_bytes()) for path in sorted(directory.glob("*.pkl"))]


def also_units(dirs: list[Path], distractors: int) -> list:
    """Every unit captured in ``dirs``, its questions renamed to datasets of their own
    (``<dataset>-d<distractors>``): a PrefEval item at 300 distractors is another test
    of the same preference, scored and fitted as its own dataset, held out with its
    topic group."""
    import pickle

    out, seen = [], set()
    for directory in dirs:
        for path in sorted(directory.glob("*.pkl")):
            if path.name in seen:  # the same unit captured by two processes
                continue
            seen.add(path.name)
            unit = pickle.loads(path.read_bytes())
            unit.dataset = f"{unit.dataset}-d{distractors}"
            for q in unit.questions:
                q.dataset = f"{q.dataset}-d{distractors}"
            out.append(unit)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=SHARED_DATA / "locomo")
    parser.add_argument("--prefeval", type=Path, default=SHARED_DATA / "prefeval")
    parser.add_argument("--no-locomo", action="store_true")
    parser.add_argument("--no-prefeval", action="store_true")
    parser.add_argument("--prefeval-every", type=int, default=5,
                        help="every N-th item of each PrefEval topic, explicit form (default 5)")
    parser.add_argument("--choice-every", type=int, default=8,
                        help="the same for the implicit-choice form (default 8)")
    parser.add_argument("--persona-every", type=int, default=16,
                        help="the same for the implicit-persona form (its units are 4x "
                             "longer to ingest; default 16)")
    parser.add_argument("--other-half", action="store_true",
                        help="the PrefEval items halfway between those the --*-every options "
                             "choose (index %% N == N // 2): a fresh slice of the same topics, "
                             "to confirm on items no earlier selection looked at")
    parser.add_argument("--distractors", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, required=True,
                        help="directory outside the repo for the store and the capture cache")
    parser.add_argument("--capture-only", action="store_true")
    parser.add_argument("--only", help="capture only these units, in this order, whatever "
                                       "the --*-every options choose: ids comma-separated, "
                                       "or @FILE with one a line (to split a capture "
                                       "between processes, or to capture a listed slice)")
    parser.add_argument("--cached-only", action="store_true",
                        help="use only the units already captured in --work (no ingestion)")
    parser.add_argument("--also", type=Path, action="append", default=[],
                        help="a directory of units captured at --also-distractors (every "
                             "unit there is used, cached only): its PrefEval questions join "
                             "the run as datasets of their own ('prefeval-explicit-d300'), "
                             "in the same topic folds; repeatable")
    parser.add_argument("--also-distractors", type=int, default=300)
    parser.add_argument("--fitted-only", action="store_true",
                        help="only the fitted fusion's variants and the baselines (no knob "
                             "elimination): cv_fitted.FIT_VARIANTS, judged by the rule")
    parser.add_argument("--rrf-k", help="the RRF k grid of the fit (comma-separated; "
                                        "default 1,3,10,30,60)")
    parser.add_argument("--variants", help="with --fitted-only: only these variants "
                                           "(comma-separated names of cv_fitted.FIT_VARIANTS)")
    parser.add_argument("--against", help="with --fitted-only: the variant the others are "
                                          "judged against (default: the shipped procedure, "
                                          "cv_fitted.SHIPPED)")
    parser.add_argument("--attribute", action="store_true",
                        help="with --fitted-only: each channel the --against procedure may "
                             "weigh, switched off in each fold's own tables (no refit), "
                             "judged by the rule: whether it earns its weight")
    parser.add_argument("--tolerate-replay-mismatch", action="store_true",
                        help="report figures even where the replay differs from live recall "
                             "(captures made by older code); without it such a run stops")
    parser.add_argument("--out", type=Path, help="write every figure as JSON here")
    args = parser.parse_args(argv)
    if args.no_locomo:
        args.locomo = None
    if args.no_prefeval:
        args.prefeval = None
    started = time.perf_counter()
    units = capture(args) + also_units(args.also, args.also_distractors)
    print(f"captured {len(units)} units in {time.perf_counter() - started:.0f} s",
          file=sys.stderr)
    if args.capture_only:
        return 0
    from cv_fitted import SHIPPED, run_fitted
    from cv_report import RRF_K_GRID, run_protocol

    if args.fitted_only:
        ks = tuple(int(k) for k in args.rrf_k.split(",")) if args.rrf_k else RRF_K_GRID
        results = run_fitted(units, ks, args.variants.split(",") if args.variants else None,
                             args.against or SHIPPED, args.tolerate_replay_mismatch,
                             attribute=args.attribute)
    else:
        results = run_protocol(units, args.tolerate_replay_mismatch)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

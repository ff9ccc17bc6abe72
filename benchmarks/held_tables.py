"""A change to the captured rankings judged with each fold's tables held, apart from the
refit's noise.

    python benchmarks/held_tables.py --run /tmp/cv-fitted.json \
        --captures /tmp/cv/captured-d10 --changed /tmp/copies/captured-d10 \
        [--also /tmp/cv300/captured-d300 --also-changed /tmp/copies300/captured-d300] \
        [--variant "shipped without graph"] [--out X.json]

``--run`` is a `cv_protocol.py --fitted-only` report on ``--captures`` (and ``--also``).
For each held-out fold, the variant's table fitted without that fold is replayed on the
fold's questions twice: as captured, and in ``--changed`` (copies of the same units whose
rankings a change would alter: a channel that ranks otherwise, simulated). The rule
(`crossval.verdict`) then judges the copies against the captures.

Refitting every weight on the copies (what `cv_protocol.py --fitted-only` does) judges the
change together with the refit: the fit is shared by every dataset, so a change confined
to one benchmark's rankings moves the others' questions too (twenty-sixth session: 19
LoCoMo questions whose rankings had not changed). Holding the tables shows what the
change itself does; it does not replace the refitted test, and which of the two decides
is to be written down before either is run. The captures' replay must reproduce the run's
nested scores, or the tables are not the ones that were judged.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from cv_capture import CapturedUnit  # noqa: F401 (the pickles name it)
from cv_fitted import SHIPPED
from cv_protocol import also_units, captured_units
from cv_report import Scorer, config_of_tables
from graphmem.evaluation.crossval import fold_table, verdict
from graphmem.evaluation.knobs import Setting


def held_scores(tables: dict, units) -> tuple[Scorer, np.ndarray]:
    """Each question's score under the table fitted without its fold (``tables``: fold ->
    weight tables, as a run reports them)."""
    scorer = Scorer(units)
    out = np.zeros(len(scorer.datasets))
    for fold in np.unique(scorer.folds):
        if str(fold) not in tables:
            raise SystemExit(f"the run has no table fitted without fold {fold}: "
                             "run it on the same captures")
        held = scorer.folds == fold
        out[held] = scorer.setting(Setting(config_of_tables(tables[str(fold)])))[held]
    return scorer, out


def _units(d10: Path, d300: list[Path]) -> list:
    return [*captured_units(d10), *also_units(d300, 300)]


def judge(run: dict, variant: str, captured: list, changed: list) -> dict:
    """The verdict of ``changed`` against ``captured`` under ``variant``'s held tables,
    with per-dataset figures and how many questions changed."""
    if variant not in run["fitted_tables_per_fold"]:
        raise SystemExit(f"variant {variant!r} is not in the run; it has "
                         f"{sorted(run['fitted_tables_per_fold'])}")
    def names(units) -> list[tuple[str, str, int]]:
        return [(u.dataset, u.unit, len(u.questions)) for u in units]

    if names(captured) != names(changed):
        raise SystemExit("--changed must hold the same units, in the same order, with the "
                         "same questions as --captures")
    tables = run["fitted_tables_per_fold"][variant]
    before_scorer, before = held_scores(tables, captured)
    _, after = held_scores(tables, changed)
    nested = run["scores"].get(f"graphmem {variant} (nested)")
    reproduces = nested is not None and len(nested) == len(before) and \
        bool(np.allclose(before, nested))
    datasets, folds = before_scorer.datasets, before_scorer.folds
    reference, result = fold_table(before, datasets, folds), fold_table(after, datasets, folds)
    judged = verdict(result, reference)
    figures = {}
    for dataset, (mean, worst) in result.summary().items():
        was_mean, was_worst = reference.summary()[dataset]
        mask = datasets == dataset
        figures[dataset] = {"before": [was_mean, was_worst], "after": [mean, worst],
                            "questions": int(mask.sum()),
                            "up": int((after[mask] > before[mask]).sum()),
                            "down": int((after[mask] < before[mask]).sum())}
    return {"variant": variant, "reproduces_run": reproduces,
            "verdict": {"keep": judged.keep, "gain": judged.mean_gain,
                        "worst": judged.worst_change, "reason": judged.reason},
            "datasets": figures}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, required=True, help="a --fitted-only report")
    parser.add_argument("--variant", default=SHIPPED, help="whose tables are held")
    parser.add_argument("--captures", type=Path, required=True,
                        help="captured-d10 of the run")
    parser.add_argument("--also", type=Path, action="append", default=[],
                        help="captured-d300 of the run (may be repeated)")
    parser.add_argument("--changed", type=Path, required=True,
                        help="copies of --captures with the change")
    parser.add_argument("--also-changed", type=Path, action="append", default=[],
                        help="copies of --also with the change, in the same order")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args(argv)
    if len(args.also) != len(args.also_changed):
        raise SystemExit("give one --also-changed for each --also")
    run = json.loads(args.run.read_text())
    report = judge(run, args.variant, _units(args.captures, args.also),
                   _units(args.changed, args.also_changed))
    if not report["reproduces_run"]:
        print("WARNING the captures' replay under the held tables differs from the run's "
              "nested scores: the run was not made on these captures", file=sys.stderr)
    v = report["verdict"]
    print(f"held tables of {args.variant!r}: {'keep' if v['keep'] else 'remove'} "
          f"({v['reason']}; mean {v['gain']:+.4f}; worst "
          + ", ".join(f"{d} {c:+.3f}" for d, c in v["worst"].items()) + ")")
    print("| dataset | questions | before (mean / worst) | after | up | down |")
    print("|---|---|---|---|---|---|")
    for dataset, f in report["datasets"].items():
        print(f"| {dataset} | {f['questions']} | {f['before'][0]:.3f} / {f['before'][1]:.3f} | "
              f"{f['after'][0]:.3f} / {f['after'][1]:.3f} | {f['up']} | {f['down']} |")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

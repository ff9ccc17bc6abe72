"""Tables fitted on every captured fold, scored on other captures: a clean out-of-sample
test of what a procedure would ship.

    python benchmarks/score_tables.py --run /tmp/cv-fitted.json \
        --captures /tmp/fresh/captured-d10 [--also /tmp/fresh300/captured-d300] [--out X.json]

``--run`` is a `cv_protocol.py --fitted-only` report: each variant's ``"all folds"`` table
(weights per kind, fallback, RRF k, secondary share, route gate) is made a
`RecallConfig` and replayed on every question of the other captures' PrefEval units
(LoCoMo units there are skipped: the run fitted on them), beside the shipped table
(`config.py`) and the BM25, dense and RRF baselines. Prints, per dataset, the mean over
questions and the worst topic group.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cv_capture import CapturedUnit  # noqa: F401 (the pickles name it)
from cv_protocol import add_capture_arguments, also_units, captured_units
from cv_report import BASELINES, Scorer, config_of_tables
from graphmem.evaluation.knobs import Setting
from graphmem.retrieval.config import HYBRID


def score(run: dict, units) -> dict:
    """Per system, per dataset: (mean over questions, worst topic group, questions)."""
    scorer = Scorer(units)
    systems = {f"{name} (table fitted on every fold)":
               scorer.setting(Setting(config_of_tables(tables["all folds"])))
               for name, tables in run["fitted_tables_per_fold"].items()}
    systems["shipped table (config.py)"] = scorer.setting(Setting(HYBRID))
    systems.update({name: scorer.baseline(name) for name in BASELINES})
    out: dict = {}
    for name, scores in systems.items():
        for dataset in sorted(set(scorer.datasets)):
            mask = scorer.datasets == dataset
            folds = [float(scores[mask & (scorer.folds == f)].mean())
                     for f in sorted(set(scorer.folds[mask]))]
            out.setdefault(name, {})[str(dataset)] = (float(scores[mask].mean()), min(folds),
                                                      int(mask.sum()))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, required=True, help="a --fitted-only report")
    add_capture_arguments(parser)
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args(argv)
    units = [u for u in captured_units(args.captures) if u.dataset.startswith("prefeval")]
    units += also_units(args.also, 300)
    if not units:
        raise SystemExit(f"no PrefEval captures in {args.captures} or {args.also}: "
                         "capture them with cv_protocol.py --capture-only first")
    figures = score(json.loads(args.run.read_text()), units)
    datasets = sorted({d for per in figures.values() for d in per})
    print("| system | " + " | ".join(datasets) + " |\n|---|" + "---|" * len(datasets))
    for name, per in figures.items():
        print(f"| {name} | " + " | ".join(
            f"{per[d][0]:.3f} / {per[d][1]:.3f} ({per[d][2]})" for d in datasets) + " |")
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

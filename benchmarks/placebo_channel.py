"""A channel that knows nothing, judged by the rule: how much does a refit alone move it?

The rule (`graphmem.evaluation.crossval.verdict`) keeps a change that raises the mean
over held-out folds and lowers no benchmark's worst fold. A new channel is judged by
fitting the fusion again with its column, nested; but the refit moves every other
weight, and the discrete choices after the fit (the dense-to-deposit share, the route
gate's share) can land elsewhere for reasons that have nothing to do with the channel.
The twenty-eighth session's E5 turn channel passed the rule (+0.0102) while its own
tables with the channel at 0 gave +0.0097 of it (`cv_fitted.run_fitted` now prints the
two parts for every variant that adds a channel).

This script adds ``placebo``: for each question, the memories any captured channel ranked,
in an order drawn at random (seeded by ``--seed``, the unit and the question's text;
nothing read from the memories). It carries no information, so whatever the rule says of
"shipped + placebo" is what a refit alone does: a keep means the rule can keep noise; the
gain it reports is a floor under which no channel's gain means anything.

    python benchmarks/placebo_channel.py --captures /tmp/c2/cv/captured-d10 \\
        --also /tmp/c2/cv300/captured-d300 --work /tmp/placebo --seed 1 \\
        [--solver exact] [--margin] [--out X.json]

``--margin``: the shipped procedure's choices after the fit need more than one question of
the smallest training dataset (`cv_fitted.FitVariant.choice_margin`); with it the placebo
moved the mean by at most 0.0002 in four seeds (thirtieth session).

The rankings go into copies of the captures (the originals are not touched); then the
fitted fusion is judged with them as `turn_vectors.judge` judges a simulated channel,
RRF k 10 as the README's command.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

import cv_fitted
from cv_protocol import add_capture_arguments, also_units
from turn_vectors import DEPTH, judge, units_to_copy

CHANNEL = "placebo"
VARIANT = "shipped + placebo"


def placebo_ranking(captured, unit_name: str, seed: int) -> list[str]:
    """The memories the captured channels ranked for the question, in a random order
    drawn from ``seed``, the unit and the question's text, cut to `DEPTH`."""
    pool = sorted({m for name, ranking in captured.rankings.items() if name != CHANNEL
                   for m in ranking})
    digest = hashlib.sha256(f"{seed}\0{unit_name}\0{captured.text}".encode()).digest()
    order = np.random.default_rng(int.from_bytes(digest[:8], "little")).permutation(len(pool))
    ranking = [pool[i] for i in order[:DEPTH]]
    for memory in ranking:  # replay breaks ties by storage row and may read a cosine
        captured.rows.setdefault(memory, 10**9 + len(captured.rows))
        captured.sims.setdefault(memory, 0.0)
    return ranking


def copy_with_placebo(source: Path, target: Path, distractors: int, seed: int) -> int:
    """Copy the captures of ``source`` into ``target`` with the placebo ranking added."""
    done = 0
    for *_, path in units_to_copy(source, target, distractors):
        captured_unit = pickle.loads(path.read_bytes())
        for question in captured_unit.questions:
            question.captured.rankings[CHANNEL] = placebo_ranking(
                question.captured, path.stem, seed)
        (target / path.name).write_bytes(pickle.dumps(captured_unit))
        done += 1
    return done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_capture_arguments(parser)
    parser.add_argument("--work", type=Path, required=True,
                        help="where the copies go (one directory per seed)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--solver", choices=("adam", "exact"), default="exact",
                        help="how the shipped procedure and the variant fit their weights "
                             "(cv_fitted.FitVariant.solver)")
    parser.add_argument("--margin", action="store_true",
                        help="the shipped procedure's discrete choices with a margin "
                             "(cv_fitted.FitVariant.choice_margin)")
    parser.add_argument("--rrf-k", type=int, default=10)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--tolerate-replay-mismatch", action="store_true",
                        help="as cv_protocol.py's (captures made by older code)")
    args = parser.parse_args()
    if not args.captures.is_dir():
        parser.error(f"--captures {args.captures}: no such directory of captures")
    copies = args.work / f"seed-{args.seed}"
    print(f"{copy_with_placebo(args.captures, copies / 'captured-d10', 10, args.seed)} "
          "units copied", file=sys.stderr)
    units = [pickle.loads(p.read_bytes())
             for p in sorted((copies / "captured-d10").glob("*.pkl"))]
    if args.also:
        more = copies / "captured-d300"
        copied = sum(copy_with_placebo(also, more, 300, args.seed) for also in args.also)
        print(f"{copied} units copied at 300 distractors", file=sys.stderr)
        units += also_units([more], 300)
    shipped = cv_fitted.FIT_VARIANTS[cv_fitted.SHIPPED]
    cv_fitted.FIT_VARIANTS[cv_fitted.SHIPPED] = replace(shipped, solver=args.solver,
                                                        choice_margin=args.margin)
    results = judge(units, (args.rrf_k,), args.tolerate_replay_mismatch,
                    simulated=(CHANNEL,), variants={VARIANT: ()})
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The expand channel scoped to the asker's stated preferences, simulated in the captures:
does it keep where `expand` alone failed?

`expand` (graphmem.retrieval.channels.expand) failed the rule on one PrefEval explicit
item: a request phrased as a fact, whose preference statement the channel ranks 8th,
under the assistant's answers that share the question's words. ``expand_scoped`` is the
same ranking with the asker's own statements of a preference moved ahead of the others,
each group kept in `expand`'s order. Those statements are the memories the profile
channel ranks (`channels.profile`: the asker's asserted, owned, live preference
statements, nearest first), which every capture holds 50 deep: the simulation is exact
for every question whose profile ranking is shorter than that, and the script counts
those where it is not.

The rankings go into copies of the captures (the originals are not touched); the fitted
fusion is judged nested, by the rule, RRF k 10, against the shipped procedure
(`cv_fitted.SHIPPED`, which leaves `expand` out), with `expand` alone added in the same
run:

    python benchmarks/expand_scoped.py --captures /work/cap/cv/captured-d10 \\
        --also /work/cap/cv300/captured-d300 [--out /tmp/scoped.json]
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv_fitted
from cv_protocol import add_capture_arguments, also_units
from graphmem.retrieval import config as recall_config

SCOPED = "expand_scoped"
REFERENCE = cv_fitted.SHIPPED
VARIANTS = {"shipped + expand": (SCOPED,), "shipped + expand_scoped": ("expand",)}
#: how deep each channel was captured (`graphmem.evaluation.captured.capture_question`)
CAPTURED_DEPTH = 50


def scoped(ranking: list[str], stated: set[str]) -> list[str]:
    """``ranking`` with the memories of ``stated`` first, each group in its order."""
    return [m for m in ranking if m in stated] + [m for m in ranking if m not in stated]


def add_scoped(units) -> tuple[int, int]:
    """Give every question of ``units`` its ``expand_scoped`` ranking; returns how many
    questions there were and how many had a profile ranking as deep as the capture's
    cut (the asker may hold more preference statements than it shows)."""
    questions = cut = 0
    for unit in units:
        for question in unit.questions:
            rankings = question.captured.rankings
            profile = rankings.get("profile", [])
            rankings[SCOPED] = scoped(rankings.get("expand", []), set(profile))
            questions += 1
            cut += len(profile) >= CAPTURED_DEPTH
    return questions, cut


def judge(units, ks: tuple[int, ...]) -> dict:
    """The variants fitted nested and judged by the rule against `REFERENCE`."""
    recall_config.CHANNELS = (*recall_config.CHANNELS, SCOPED)
    cv_fitted.HYBRID = cv_fitted.HYBRID.model_copy(
        update={"channels": (*cv_fitted.HYBRID.channels, SCOPED)})
    reference = cv_fitted.FIT_VARIANTS[REFERENCE]
    cv_fitted.FIT_VARIANTS[REFERENCE] = replace(reference, left_out=("expand", SCOPED))
    for name, left_out in VARIANTS.items():
        cv_fitted.FIT_VARIANTS[name] = replace(reference, left_out=left_out)
    return cv_fitted.run_fitted(units, ks=ks, variants=list(VARIANTS), against=REFERENCE)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_capture_arguments(parser)
    parser.add_argument("--rrf-k", type=int, default=10)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    started = time.perf_counter()
    units = [pickle.loads(p.read_bytes()) for p in sorted(args.captures.glob("*.pkl"))]
    units += also_units(args.also, 300)
    questions, cut = add_scoped(units)
    print(f"{questions} questions; the profile ranking reached the capture's cut "
          f"({CAPTURED_DEPTH}) in {cut}: there the scoped ranking may miss statements",
          file=sys.stderr)
    results = judge(units, (args.rrf_k,))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1, default=str))
    print(f"done in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

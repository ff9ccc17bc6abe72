"""Nested: the shipped procedure with dense's ranking cut to one memory per deposit.

Every captured question's dense ranking keeps only the first memory of each deposit (its
AFFILIATED siblings, as captured, are skipped); the shipped procedure (`cv_fitted.SHIPPED`)
is then fitted without each fold and scored on it, and judged by the rule against the
same procedure on the captures as they are. A cut ranking is shorter than a live one
would be (the capture holds dense's first 50 memories, not its first 50 deposits).

    python benchmarks/cv_dense_once.py --work /tmp/rcv --also /tmp/rcv300/captured-d300
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

import numpy as np

from cv_fitted import FIT_VARIANTS, SHIPPED, nested_variant
from cv_protocol import also_units
from cv_report import Scorer
from cv_tables import category_table
from graphmem.evaluation.crossval import fold_table, verdict


def once(ids: list[str], affiliated: dict[str, list[str]]) -> list[str]:
    """``ids`` with every memory whose sibling is listed before it left out."""
    out: list[str] = []
    covered: set[str] = set()
    for mid in ids:
        if mid in covered:
            continue
        out.append(mid)
        covered.add(mid)
        covered.update(affiliated.get(mid, ()))
    return out


def load(work: Path, also: list[Path]) -> list:
    units = [pickle.loads(p.read_bytes()) for p in sorted((work / "captured-d10").glob("*.pkl"))]
    return units + also_units(also, 300)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--also", type=Path, action="append", default=[])
    args = parser.parse_args(argv)
    raw, cut = load(args.work, args.also), load(args.work, args.also)
    depths = []
    for unit in cut:
        for q in unit.questions:
            q.captured.rankings["dense"] = once(q.captured.rankings.get("dense", []),
                                                q.captured.affiliated)
            depths.append(len(q.captured.rankings["dense"]))
    print(f"dense depth after the cut: mean {np.mean(depths):.1f}, least {min(depths)}",
          file=sys.stderr)
    plain, cut_scorer = Scorer(raw), Scorer(cut)
    reference, _, _ = nested_variant(plain, SHIPPED, FIT_VARIANTS[SHIPPED], (10,))
    scores, _, _ = nested_variant(cut_scorer, f"{SHIPPED} (dense once per deposit)",
                                  FIT_VARIANTS[SHIPPED], (10,))
    before = fold_table(reference, plain.datasets, plain.folds)
    after = fold_table(scores, plain.datasets, plain.folds)
    result = verdict(after, before)
    print(f"dense once per deposit: {'keep' if result.keep else 'remove'} ({result.reason}; "
          f"mean {result.mean_gain:+.4f}; worst " + ", ".join(
              f"{d} {c:+.3f}" for d, c in result.worst_change.items()) + ")")
    for name, table in (("reference", before), ("dense once per deposit", after)):
        print(name + ": " + ", ".join(f"{d} {m:.3f} / {w:.3f}"
                                     for d, (m, w) in table.summary().items()))
    text, _ = category_table(plain, {"reference": reference, "dense once per deposit": scores})
    print(text)
    for (_, q), x, y in zip(plain.questions, reference, scores):
        if x != y and q.dataset != "locomo":
            print(f"{q.dataset} {q.fold} {q.unit}: {x:.0f} -> {y:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

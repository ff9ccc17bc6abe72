"""A diagnostic for the multi-hop kind, not a result: the shipped fusion's LoCoMo ranking
with the memories said by the one agent a question names moved to the front (a hard
filter on the speaker, nothing dropped), per category of question.

    python benchmarks/named_filter.py --captures DIR [--captures DIR ...]

Of the multi-hop questions that name one person, 93 % have all their evidence in that
person's own turns, so a filter on the speaker looks like a way to free the first ten
places for them. Adversarial questions are the catch: they name the person who did
*not* say it (for 24 % of them all the evidence is the named person's), and the
classifier cannot tell them apart. Three rankings are replayed from the captures (`cv_protocol.py
--capture-only`) with the shipped tables (`config.py`), in-sample: the tables were fitted
on these conversations, and nothing here is fitted:

- the shipped ranking;
- the filter on every question that names one agent;
- the filter on the questions the classifier gives the multi-hop kind only.

Prints recall_all@10 per category, mean over conversations / worst conversation
(questions).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from cv_capture import CapturedUnit  # noqa: F401 (the pickles name it)
from cv_protocol import captured_units
from cv_report import CATEGORY_NAMES, DEPTH
from graphmem.evaluation.captured import replay
from graphmem.evaluation.metrics import rank_turns, recall_all_at_k
from graphmem.ingestion.benchmarks.locomo import load_locomo
from graphmem.retrieval.classify import QueryKind
from graphmem.retrieval.config import HYBRID
from shared_data import SHARED_DATA

#: memories replayed before the filter moves the named agent's to the front
POOL = 100
CATEGORIES = ("all", "multi-hop", "temporal", "open-domain", "single-hop", "adversarial")
VARIANTS = ("shipped", "filter, every question naming one agent", "filter, multi-hop kind only")


def moved_first(ids: list[str], keep: Callable[[str], bool]) -> list[str]:
    """``ids`` with those ``keep`` accepts first, each part in its own order."""
    kept = [m for m in ids if keep(m)]
    return kept + [m for m in ids if not keep(m)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--captures", type=Path, action="append", required=True,
                        help="a captured-d10 directory of cv_protocol.py (repeatable)")
    parser.add_argument("--data", type=Path, default=SHARED_DATA / "locomo")
    args = parser.parse_args(argv)
    units = [u for d in args.captures for u in captured_units(d) if u.dataset == "locomo"]
    if not units:
        raise SystemExit(f"no LoCoMo captures in {args.captures}: capture them with "
                         "cv_protocol.py --no-prefeval --capture-only first")
    sources = {u.id: u for u in load_locomo(args.data, skip_bad=True).units}
    scores: dict[str, dict[str, list[tuple[str, float]]]] = defaultdict(lambda: defaultdict(list))
    for unit in units:
        source = sources[unit.unit]
        speaker = {t.id: t.speaker for t in source.turns}
        for q in unit.questions:
            named = [a for a in source.agents if a.lower() in q.captured.text.lower()]
            pool = replay(q.captured, HYBRID, k=POOL)
            if len(named) == 1:
                filtered = moved_first(pool, lambda m: any(
                    speaker.get(t) == named[0] for t in unit.turns_of_memory.get(m, [])))
            else:
                filtered = pool
            listed = q.captured.query_class().kind == QueryKind.MULTI_HOP
            rankings = dict(zip(VARIANTS, (pool[:DEPTH], filtered,
                                           filtered if listed else pool[:DEPTH])))
            category = CATEGORY_NAMES.get(q.category, q.category)
            for name, ids in rankings.items():
                score = recall_all_at_k(rank_turns(ids, unit.turns_of_memory), q.evidence, 10)
                scores[name][category].append((unit.unit, score))
                scores[name]["all"].append((unit.unit, score))
    print("| ranking | " + " | ".join(CATEGORIES) + " |")
    print("|---|" + "---|" * len(CATEGORIES))
    for name in VARIANTS:
        cells = []
        for category in CATEGORIES:
            per_unit: dict[str, list[float]] = defaultdict(list)
            for unit_id, score in scores[name][category]:
                per_unit[unit_id].append(score)
            means = [float(np.mean(v)) for v in per_unit.values()]
            cells.append(f"{np.mean(means):.3f} / {min(means):.3f} "
                         f"({len(scores[name][category])})" if means else "")
        print(f"| {name} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

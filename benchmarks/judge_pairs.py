"""The labelled pair set of the equivalence judge: merge rates per part and class, and
the threshold chosen by cross-validation (mean and worst test fold).

Read by ``judge_calibration.py``; the pairs are in ``data/judge_pairs.jsonl`` (one JSON
object a line: ``a``, ``b``, ``label`` "merge" or "apart", ``class``, ``part``, and
optional ``context_a``/``context_b`` with ``at`` (seconds) and ``place``). With
``per_class`` only the first pairs of each class in each part are judged: a quick look,
not the reported figures.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from graphmem.judge import DEFAULT_CONTRADICTION_FLOOR, DEFAULT_THRESHOLD, DepositContext, judge_equivalence
from graphmem.text.nlp import Parser

PARSER = Parser(full=True)  # one parse per text for the whole run (folds and sweeps)

PAIRS = Path(__file__).resolve().parent / "data" / "judge_pairs.jsonl"
MAX_APART_MERGED = 0.01  # the target: at most 1% of must-not pairs merged
THRESHOLDS = [round(0.70 + 0.01 * i, 2) for i in range(26)]


def load_pairs(path: Path = PAIRS) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if not rows:
        raise SystemExit(f"{path} holds no pairs")
    return rows


def first_of_each_class(rows: list[dict], n: int) -> list[dict]:
    """The first ``n`` pairs of each class in each part, in file order."""
    taken: Counter[tuple[str, str]] = Counter()
    kept = []
    for r in rows:
        taken[r["part"], r["class"]] += 1
        if taken[r["part"], r["class"]] <= n:
            kept.append(r)
    return kept


def _context(raw: dict | None) -> DepositContext | None:
    return DepositContext(at=raw.get("at"), place=raw.get("place")) if raw else None


def verdicts(rows: list[dict], sims: list[float], threshold: float) -> list:
    floor = min(DEFAULT_CONTRADICTION_FLOOR, threshold)
    return [judge_equivalence(r["a"], r["b"], s, threshold=threshold, contradiction_floor=floor,
                              context_a=_context(r.get("context_a")),
                              context_b=_context(r.get("context_b")), parser=PARSER)
            for r, s in zip(rows, sims)]


def rates(rows: list[dict], merged: list[bool]) -> dict:
    """Share of must-not pairs merged, of paraphrases merged, and merge precision."""
    apart = [m for r, m in zip(rows, merged) if r["label"] == "apart"]
    para = [m for r, m in zip(rows, merged) if r["label"] == "merge"]
    tp, fp = sum(para), sum(apart)
    return {"apart merged": sum(apart) / len(apart) if apart else 0.0,
            "paraphrases merged": sum(para) / len(para) if para else 0.0,
            "precision": tp / (tp + fp) if tp + fp else 1.0,
            "n apart": len(apart), "n merge": len(para)}


def choose_threshold(rows: list[dict], sims: list[float]) -> float:
    """The threshold merging the most paraphrases with at most 1% must-not merged
    (ties: the highest, the safer)."""
    best = (-1.0, 0.0)
    for t in THRESHOLDS:
        r = rates(rows, [v.kind == "equivalent" for v in verdicts(rows, sims, t)])
        if r["apart merged"] <= MAX_APART_MERGED and (r["paraphrases merged"], t) >= best:
            best = (r["paraphrases merged"], t)
    return best[1] if best[0] >= 0 else max(THRESHOLDS)


def cross_validate(rows: list[dict], sims: list[float], folds: int) -> list[dict]:
    """K folds stratified by class; per test fold its chosen threshold and rates."""
    by_class = defaultdict(list)
    for i, r in enumerate(rows):
        by_class[r["class"]].append(i)
    fold_of = {}
    for members in by_class.values():
        for k, i in enumerate(members):
            fold_of[i] = k % folds
    out = []
    for k in range(folds):
        train = [i for i in range(len(rows)) if fold_of[i] != k]
        test = [i for i in range(len(rows)) if fold_of[i] == k]
        t = choose_threshold([rows[i] for i in train], [sims[i] for i in train])
        tested = [rows[i] for i in test]
        merged = [v.kind == "equivalent" for v in verdicts(tested, [sims[i] for i in test], t)]
        out.append({"fold": k, "threshold": t, **rates(tested, merged)})
    return out


def report_pairs(model, *, folds: int = 5, threshold: float | None = None,
                 per_class: int | None = None) -> None:
    rows = load_pairs()
    if per_class is not None:
        rows = first_of_each_class(rows, per_class)
    texts = sorted({t for r in rows for t in (r["a"], r["b"])})
    vectors = dict(zip(texts, model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)))
    sims = [float(np.dot(vectors[r["a"]], vectors[r["b"]])) for r in rows]
    threshold = threshold or DEFAULT_THRESHOLD
    judged = verdicts(rows, sims, threshold)
    print(f"\n## Labelled pairs ({len(rows)}), threshold {threshold}"
          + (f" (the first {per_class} of each class and part)" if per_class is not None else ""))
    for part in ("tune", "held", "fresh", "all"):
        idx = [i for i, r in enumerate(rows) if part == "all" or r["part"] == part]
        if not idx:
            continue
        sub = [rows[i] for i in idx]
        merged = [judged[i].kind == "equivalent" for i in idx]
        r = rates(sub, merged)
        print(f"\n### part {part}: {r['n apart']} must-not, {r['n merge']} paraphrases; "
              f"must-not merged {r['apart merged']:.3f}, paraphrases merged "
              f"{r['paraphrases merged']:.3f}, merge precision {r['precision']:.3f}")
        print("| class | label | pairs | merged | merge rate |")
        print("|---|---|---|---|---|")
        for cls in dict.fromkeys(x["class"] for x in sub):
            got = [m for x, m in zip(sub, merged) if x["class"] == cls]
            label = next(x["label"] for x in sub if x["class"] == cls)
            print(f"| {cls} | {label} | {len(got)} | {sum(got)} | {sum(got) / len(got):.3f} |")
    wrong = [(rows[i], judged[i], sims[i]) for i in range(len(rows))
             if (judged[i].kind == "equivalent") != (rows[i]["label"] == "merge")]
    print(f"\n{len(wrong)} wrong verdicts:")
    for r, v, s in wrong:
        print(f"  [{r['part']}/{r['class']}] sim {s:.3f} {v.kind}: {r['a']!r} / {r['b']!r} -- {v.reason}")
    tuned = [i for i, r in enumerate(rows) if r["part"] in ("tune", "held")]
    print("\n### threshold sweep over tune+held (the contradiction floor follows below 0.75)")
    print("| threshold | must-not merged | paraphrases merged | precision |")
    print("|---|---|---|---|")
    for t in THRESHOLDS[::5]:
        sub = [rows[i] for i in tuned]
        r = rates(sub, [v.kind == "equivalent" for v in verdicts(sub, [sims[i] for i in tuned], t)])
        print(f"| {t} | {r['apart merged']:.3f} | {r['paraphrases merged']:.3f} | {r['precision']:.3f} |")
    cv = cross_validate([rows[i] for i in tuned], [sims[i] for i in tuned], folds)
    print(f"\n### {folds}-fold cross-validation of the threshold over tune+held")
    print("| fold | threshold | must-not merged | paraphrases merged | precision |")
    print("|---|---|---|---|---|")
    for f in cv:
        print(f"| {f['fold']} | {f['threshold']} | {f['apart merged']:.3f} | "
              f"{f['paraphrases merged']:.3f} | {f['precision']:.3f} |")
    for name, pick in (("mean", np.mean), ("worst", None)):
        apart = np.mean([f["apart merged"] for f in cv]) if pick else max(f["apart merged"] for f in cv)
        para = np.mean([f["paraphrases merged"] for f in cv]) if pick else min(f["paraphrases merged"] for f in cv)
        print(f"CV {name}: must-not merged {apart:.3f}, paraphrases merged {para:.3f}")

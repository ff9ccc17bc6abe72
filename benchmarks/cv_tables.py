"""Markdown tables of the cross-validated protocol (see cv_protocol.py, cv_report.py).

Per dataset: one row per held-out fold, then the mean over folds and the worst fold, a
column per system. LoCoMo per category: mean over folds and worst fold of each
category's recall. Knobs: the verdict of each, with the change it makes to the mean over
held-out folds (averaged over datasets) and to each dataset's worst fold.
"""

from __future__ import annotations

import numpy as np

CATEGORY_NAMES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop",
                  "5": "adversarial"}
SHORT = {"locomo": "LoCoMo", "prefeval-explicit": "PE expl.",
         "prefeval-implicit-choice": "PE choice", "prefeval-implicit-persona": "PE persona"}


def _row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _head(cells) -> list[str]:
    return [_row(cells), "|" + "---|" * len(cells)]


def fold_means(scores: np.ndarray, datasets, folds, dataset: str, within=None):
    """fold -> (questions, mean) for one dataset."""
    mask = datasets == dataset if within is None else (datasets == dataset) & within
    return {str(f): (int((mask & (folds == f)).sum()), float(scores[mask & (folds == f)].mean()))
            for f in np.unique(folds[mask])}


def dataset_table(scorer, systems: dict, dataset: str, metric: str) -> tuple[str, dict]:
    names = list(systems)
    per = {n: fold_means(s, scorer.datasets, scorer.folds, dataset) for n, s in systems.items()}
    folds = list(per[names[0]])
    lines = [f"### {dataset}: {metric} per held-out fold", "",
             *_head(["fold", "questions", *names])]
    for f in folds:
        lines.append(_row([f, per[names[0]][f][0], *[f"{per[n][f][1]:.3f}" for n in names]]))
    means = {n: float(np.mean([v for _, v in per[n].values()])) for n in names}
    worst = {n: float(min(v for _, v in per[n].values())) for n in names}
    lines.append(_row(["**mean**", "", *[f"**{means[n]:.3f}**" for n in names]]))
    lines.append(_row(["**worst**", "", *[f"**{worst[n]:.3f}**" for n in names]]))
    pooled = {n: float(s[scorer.datasets == dataset].mean()) for n, s in systems.items()}
    lines.append(_row(["all questions", int((scorer.datasets == dataset).sum()),
                       *[f"{pooled[n]:.3f}" for n in names]]))
    return "\n".join(lines), {"folds": per, "mean": means, "worst": worst, "pooled": pooled}


def category_table(scorer, systems: dict) -> tuple[str, dict]:
    """LoCoMo: per category, mean over folds / worst fold (pooled in brackets)."""
    mask = scorer.datasets == "locomo"
    cats = sorted(np.unique(scorer.categories[mask]), key=int)
    lines = ["### LoCoMo recall_all@10 per category: mean over the held-out conversations / worst one "
             "(all questions pooled)", "",
             *_head(["system", *[f"{c} {CATEGORY_NAMES.get(c, '')}" for c in cats]])]
    out: dict = {}
    for name, scores in systems.items():
        cells = []
        for c in cats:
            within = scorer.categories == c
            per = fold_means(scores, scorer.datasets, scorer.folds, "locomo", within)
            values = [v for _, v in per.values()]
            pooled = float(scores[mask & within].mean())
            out.setdefault(name, {})[c] = {"mean": float(np.mean(values)),
                                           "worst": float(min(values)), "pooled": pooled}
            cells.append(f"{np.mean(values):.3f} / {min(values):.3f} ({pooled:.3f})")
        lines.append(_row([name, *cells]))
    return "\n".join(lines), out


def knob_table(rows: list[dict]) -> str:
    datasets = list(rows[0]["worst"]) if rows else []
    lines = _head(["knob", "now", "chosen", "Δ mean", *[f"Δ worst {SHORT.get(d, d)}"
                                                        for d in datasets], "verdict"])
    for r in rows:
        lines.append(_row([r["name"], r["current"], r["chosen"], f"{r['gain']:+.4f}",
                           *[f"{r['worst'][d]:+.3f}" for d in datasets],
                           ("keep" if r["keep"] else "remove") + f": {r['reason']}"]))
    return "\n".join(lines)


def print_tables(scorer, rows: list[dict], systems: dict, decisions: dict,
                 final_changes: list[str], log: dict) -> dict:
    from cv_report import metric_name

    print("## Every knob of the shipped setting judged alone (the others as shipped)\n")
    print(knob_table(rows))
    print("\n## The protocol on all folds: backward elimination, then values\n")
    print("Removed, in order (mean gain of keeping it when removed): " +
          (", ".join(f"{n} ({g:+.4f})" for n, g in log["removed"]) or "nothing"))
    print("\nValues changed: " + (", ".join(f"{n} {a} -> {b}" for n, a, b in log["tuned"])
                                  or "none"))
    print("\nThe protocol's setting against the shipped one:\n")
    print("\n".join(f"- {c}" for c in final_changes) or "- no change")
    out: dict = {"tables": {}}
    for dataset in sorted(np.unique(scorer.datasets)):
        text, figures = dataset_table(scorer, systems, str(dataset), metric_name(str(dataset)))
        print("\n" + text)
        out["tables"][str(dataset)] = figures
    if (scorer.datasets == "locomo").any():
        text, figures = category_table(scorer, systems)
        print("\n" + text)
        out["locomo_categories"] = figures
    print("\n### What the nested procedure removed or changed, per held-out fold\n")
    for fold, d in decisions.items():
        print(f"- {fold}: {'; '.join(d['changes']) or 'no change'}")
    return out

"""Scores from the unit records, and the reports: results.json, results.md, PNG charts.

    build_results(records, protocol, ...)  -> {"benchmark", "questions", "systems": {name:
        {"overall": {...}, "by_category": {...}, "latency_ms": {"p50", "p95"}, ...}}, ...}
    write_reports(out, protocol, options, load_info)   writes the three kinds of file
    compare_runs(dirs) -> markdown                    several runs side by side

Scores are computed here from the rankings the runner stored, so a report can always be
rebuilt from ``units.jsonl`` alone.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.evaluation.answer import summarise_llm
from graphmem.evaluation.metrics import mean, percentile, score_ranking, summarise_scores
from graphmem.evaluation.protocols import Protocol

#: one line of JSON per evaluated unit, appended as units finish (runs resume from it)
UNITS_FILE = "units.jsonl"

__all__ = ["build_results", "compare_runs", "headline_metric", "write_reports"]


def headline_metric(protocol: Protocol) -> str:
    """The one number per category the charts and comparisons show."""
    if not protocol.scores_evidence:
        return "choice_accuracy"
    return "recall_all@10" if 10 in protocol.turn_ks else f"recall_all@{max(protocol.turn_ks)}"


def score_question(question: dict[str, Any], system: str, protocol: Protocol
                   ) -> dict[str, float | None]:
    """Every metric of one system on one question."""
    entry = question["systems"][system]
    scores: dict[str, float | None] = {}
    if question["scored"] and protocol.scores_evidence:
        scores.update(score_ranking(entry["turns"], question["evidence"], protocol.turn_ks,
                                    metrics=protocol.metrics))
        if protocol.session_ks and question["evidence_sessions"]:
            scores.update(score_ranking(entry.get("sessions", []), question["evidence_sessions"],
                                        protocol.session_ks, metrics=protocol.session_metrics,
                                        prefix="session_"))
    if question.get("n_options") and question.get("correct_option") is not None:
        scores["choice_accuracy"] = float(entry.get("choice") == question["correct_option"])
    return scores


def build_results(records: list[dict[str, Any]], protocol: Protocol, *,
                  settings: dict[str, Any] | None = None,
                  load_info: dict[str, Any] | None = None) -> dict[str, Any]:
    """The results.json document for these unit records."""
    questions = [(r, q) for r in records for q in r["questions"]]
    systems = list(dict.fromkeys(s for _, q in questions for s in q["systems"]))
    results: dict[str, Any] = {
        "benchmark": protocol.name, "questions": len(questions),
        "scored_questions": sum(1 for _, q in questions if q["scored"]),
        "units": len(records), "group_by": protocol.group_label,
        "category_names": dict(protocol.category_names),
        "headline": headline_metric(protocol), "settings": settings or {},
        "skipped_records": (load_info or {}).get("skipped_records", 0),
        "load_notes": (load_info or {}).get("notes", {}),
        "systems": {},
    }
    if protocol.choice_label:
        results["choice_rule"] = protocol.choice_label
    if protocol.note:
        results["note"] = protocol.note
    if protocol.name == "personamem":
        results["label"] = "retrieval-only proxy (multiple choice decided by retrieved memories)"
    for system in systems:
        rows = [(q["category"], score_question(q, system, protocol)) for _, q in questions
                if system in q["systems"]]
        latencies = [q["systems"][system]["latency_ms"] for _, q in questions
                     if system in q["systems"]]
        summary: dict[str, Any] = summarise_scores(rows)
        summary["latency_ms"] = {"p50": percentile(latencies, 50),
                                 "p95": percentile(latencies, 95), "n": len(latencies)}
        # a memory may stand for several turns and a turn for several memories: how many
        # distinct turns a system's list held (the cut-off is the deepest k)
        summary["ranked_turns_mean"] = mean(len(q["systems"][system]["turns"])
                                            for _, q in questions if system in q["systems"])
        if protocol.name == "prefeval":
            summary["by_distractors"] = _by_distractors(records, system, protocol)
        results["systems"][system] = summary
    llm = [(q["category"], q["llm"]) for _, q in questions if "llm" in q]
    if llm:
        results["systems"].setdefault("graphmem", {})["llm"] = summarise_llm(llm)
    return results


def _by_distractors(records: list[dict[str, Any]], system: str, protocol: Protocol) -> dict:
    groups: dict[str, list] = defaultdict(list)
    for record in records:
        n = str(record.get("meta", {}).get("n_distractors", "?"))
        for q in record["questions"]:
            if system in q["systems"]:
                groups[n].append(("all", score_question(q, system, protocol)))
    return {n: summarise_scores(rows)["overall"] for n, rows in sorted(groups.items())}


def write_reports(out: Path, protocol: Protocol, options: Any,
                  load_info: dict[str, Any], wanted: set[str] | None = None) -> dict[str, Any]:
    """Rebuild results.json, results.md and the charts in ``out`` from units.jsonl."""
    records = [r for r in read_unit_records(out) if wanted is None or r["unit"] in wanted]
    results = build_results(records, protocol, settings=options.pinned(), load_info=load_info)
    (out / "results.json").write_text(json.dumps(results, indent=2))
    (out / "results.md").write_text(render_markdown(results))
    write_charts(results, out)
    return results


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _metric_columns(results: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for summary in results["systems"].values():
        names += [k for k in summary.get("overall", {}) if k != "n" and k not in names]
    return sorted(names, key=_metric_order)


def _metric_order(name: str) -> tuple[str, int]:
    metric, _, k = name.partition("@")
    return (metric, int(k) if k.isdigit() else 0)


def render_markdown(results: dict[str, Any]) -> str:
    """A markdown report: overall table, per-category table of the headline, latency, LLM."""
    lines = [f"# {results['benchmark']}: {results['questions']} questions, "
             f"{results['units']} units", ""]
    if results.get("label"):
        lines += [f"*{results['label']}*", ""]
    if results.get("note"):
        lines += [results["note"], ""]
    if results.get("skipped_records"):
        lines += [f"Skipped {results['skipped_records']} bad records while loading "
                  "(--skip-bad).", ""]
    columns = _metric_columns(results)
    lines += ["| system | " + " | ".join(columns) + " | p50 ms | p95 ms |",
              "|---" * (len(columns) + 3) + "|"]
    for name, summary in results["systems"].items():
        overall, lat = summary.get("overall", {}), summary.get("latency_ms", {})
        lines.append(f"| {name} | " + " | ".join(_fmt(overall.get(c)) for c in columns)
                     + f" | {_fmt(lat.get('p50'))} | {_fmt(lat.get('p95'))} |")
    headline = results["headline"]
    cats = list(dict.fromkeys(c for s in results["systems"].values()
                              for c in s.get("by_category", {})))
    names = results.get("category_names", {})
    lines += ["", f"## {headline} by {results['group_by']}", "",
              f"| {results['group_by']} | n | " + " | ".join(results["systems"]) + " |",
              "|---" * (len(results["systems"]) + 2) + "|"]
    for cat in cats:
        first = next(iter(results["systems"].values()))
        n = first.get("by_category", {}).get(cat, {}).get("n")
        label = f"{cat} {names[cat]}" if cat in names else cat
        lines.append(f"| {label} | {n} | " + " | ".join(
            _fmt(s.get("by_category", {}).get(cat, {}).get(headline))
            for s in results["systems"].values()) + " |")
    llm = results["systems"].get("graphmem", {}).get("llm")
    if llm:
        lines += ["", "## With an LLM (graphmem's recalled memories)", "",
                  "```", json.dumps(llm, indent=2), "```"]
    return "\n".join(lines) + "\n"


def write_charts(results: dict[str, Any], out: Path) -> list[Path]:
    """One PNG of grouped bars: the headline metric per category, a bar per system."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    headline = results["headline"]
    systems = results["systems"]
    cats = list(dict.fromkeys(c for s in systems.values() for c in s.get("by_category", {})))
    if not cats or not systems:
        return []
    width = 0.8 / len(systems)
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(cats) + 2), 4))
    for i, (name, summary) in enumerate(systems.items()):
        values = [summary.get("by_category", {}).get(c, {}).get(headline) or 0.0 for c in cats]
        ax.bar([x + i * width for x in range(len(cats))], values, width, label=name)
    names = results.get("category_names", {})
    ax.set_xticks([x + width * (len(systems) - 1) / 2 for x in range(len(cats))])
    ax.set_xticklabels([names.get(c, c) for c in cats], rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel(headline)
    ax.set_title(f"{results['benchmark']}: {headline} by {results['group_by']}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / f"{headline.replace('@', '_at_')}_by_{results['group_by']}.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return [path]


def compare_runs(dirs: list[str | Path]) -> str:
    """Markdown with one row per run and system: overall metrics and latency."""
    runs = []
    for d in dirs:
        path = Path(d) / "results.json"
        if not path.is_file():
            raise InvalidInput(f"{path}: no results.json; run graphmem eval <benchmark> "
                               f"--out {d} first")
        try:
            runs.append((Path(d), json.loads(path.read_text())))
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{path}: not valid JSON ({exc})") from None
    columns: list[str] = []
    for _, results in runs:
        columns += [c for c in _metric_columns(results) if c not in columns]
    columns.sort(key=_metric_order)
    lines = ["| run | benchmark | setting | system | questions | " + " | ".join(columns)
             + " | p50 ms |", "|---" * (len(columns) + 6) + "|"]
    for d, results in runs:
        settings = results.get("settings", {})
        setting = ", ".join(f"{k}={settings[k]}" for k in ("config", "distractors", "form")
                            if settings.get(k) is not None and
                            (k != "distractors" or results["benchmark"] == "prefeval")
                            and (k != "form" or results["benchmark"] == "prefeval"))
        for name, summary in results["systems"].items():
            overall = summary.get("overall", {})
            lines.append(f"| {d.name} | {results['benchmark']} | {setting or '-'} | {name} | "
                         f"{results['questions']} | "
                         + " | ".join(_fmt(overall.get(c)) for c in columns)
                         + f" | {_fmt(summary.get('latency_ms', {}).get('p50'))} |")
    return "\n".join(lines) + "\n"


def read_unit_records(out: Path) -> list[dict[str, Any]]:
    """The unit records of ``out/units.jsonl`` (a torn last line is ignored)."""
    path = Path(out) / UNITS_FILE
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # the line a killed run was writing
    return rows

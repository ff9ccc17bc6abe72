"""Reading run directories back: a structure table across runs and growth charts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInput


def load_run(directory: Path) -> dict[str, Any]:
    """``report.json`` and the per-round rows of one run directory."""
    report = directory / "report.json"
    if not report.is_file():
        raise InvalidInput(f"{directory}: no report.json; is this a world run directory?")
    rows = [json.loads(x) for x in (directory / "structure.jsonl").read_text().splitlines()
            if x.strip()]
    return {"dir": directory, "report": json.loads(report.read_text()),
            "rounds": [r for r in rows if r["round"] >= 0]}


def summary_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per run: the final structure and the conversation overlap."""
    out = []
    for run in runs:
        rep, final = run["report"], run["report"]["final"]
        owned = final.get("owned") or {}
        out.append({
            "world": rep["world"], "design": rep["design"], "rounds": rep["rounds"],
            "seconds": rep["seconds"], "seeded": final["seeded_entries"],
            "written": final["entries_written"], "multi_owner": final["multi_owner_share"],
            "linked": final["linked_share"], "deepest": final["deepest_merge"],
            "max_owned": max(owned.values(), default=0),
            "amplification": final["recall_amplification"],
            "talk_overlap": rep["overlap"]["conversing_overlap"],
            "silent_overlap": rep["overlap"]["silent_overlap"]})
    return out


def growth_chart(runs: list[dict[str, Any]], path: Path) -> Path:
    """Entries written and multi-owner share per round, one line per run (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for run in runs:
        label = f"{run['report']['world']} / {run['report']['design']}"
        xs = [r["round"] + 1 for r in run["rounds"]]
        left.plot(xs, [r["entries_written"] for r in run["rounds"]], label=label)
        right.plot(xs, [r["multi_owner_share"] for r in run["rounds"]], label=label)
    left.set(xlabel="round", ylabel="simulation entries written", title="Growth")
    right.set(xlabel="round", ylabel="multi-owner share", title="Sharing")
    left.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

"""Reading run directories back: a structure table across runs, the issue's targets
checked on it, the sharing at chosen rounds of each run, and growth charts."""

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


BASELINES = ("private", "two-tier", "shared-acl")


def targets(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Each target, read off the summary rows of one world's runs (one per design):
    consensus writes fewer entries than every other design; only consensus has
    multi-owner records, and of the baselines none links (nomerge keeps the links of a
    deposit's atoms, only the merge is off); the nomerge/consensus entry ratio and
    nomerge's sharing; conversing pairs overlap at least ten times more than silent
    ones; recall amplification at most 1.0 everywhere. None where a design is missing."""
    by = {r["design"]: r for r in rows}
    con = by.get("consensus")
    if con is None:
        return {}
    others = [d for d in (*BASELINES, "nomerge") if d in by]
    nomerge = by.get("nomerge")
    talk, silent = con["talk_overlap"], con["silent_overlap"]
    return {
        "consensus_fewest_entries": all(con["written"] < by[d]["written"] for d in others)
        if others else None,
        "only_consensus_shares": con["multi_owner"] > 0 and all(
            by[d]["multi_owner"] == 0 for d in others) if others else None,
        "only_consensus_links_among_baselines": con["linked"] > 0 and all(
            by[d]["linked"] == 0 for d in BASELINES if d in by),
        "nomerge_ratio": round(nomerge["written"] / con["written"], 2)
        if nomerge and con["written"] else None,
        "nomerge_shares_nothing": nomerge["multi_owner"] == 0 if nomerge else None,
        "conversing_overlap": talk, "silent_overlap": silent,
        "conversing_tenfold": talk > 0 and talk >= 10 * silent,
        "amplification_at_most_1": all(r["amplification"] <= 1.0 for r in rows),
    }


def shares_at(runs: list[dict[str, Any]], at: list[int]) -> dict[str, dict[int, float]]:
    """Multi-owner share after round ``n`` (counted from 1) of each run, from its
    per-round rows: the horizon experiment reads one long run at several rounds."""
    out = {}
    for run in runs:
        rows = {r["round"] + 1: r for r in run["rounds"]}
        out[run["report"]["design"]] = {n: rows[n]["multi_owner_share"] for n in at if n in rows}
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

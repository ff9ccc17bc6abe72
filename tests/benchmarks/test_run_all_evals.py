"""`benchmarks/run_all_evals.sh --smoke`: every step of the harness on a tiny slice of the
real data (LoCoMo's conv-30; two PrefEval items at 10 distractor turns and one at 20; the
LongMemEval and PersonaMem fixtures), and the report that puts the runs side by side.

The figures mean nothing at this size; what is checked is that each step still runs on
the data as it is now and writes what the report reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmarks import scripts

pytestmark = pytest.mark.slow

#: the smoke run's `graphmem eval` runs: benchmark, units, questions
RUNS = {
    "locomo": ("locomo", 1, 105),
    "prefeval-explicit-10": ("prefeval", 2, 2),
    "prefeval-explicit-20": ("prefeval", 1, 1),
    "longmemeval-fixture": ("longmemeval", 6, 6),
    "personamem-fixture": ("personamem", 5, 5),
}
SYSTEMS = ["graphmem", "bm25", "dense", "rrf"]


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory, shared_data) -> tuple[Path, str]:
    """The smoke run's output directory and what it printed."""
    out = tmp_path_factory.mktemp("runs")
    venv_bin = str(Path(sys.executable).parent)  # graphmem and python, as a user has them
    env = {**os.environ, "GRAPHMEM_SHARED_DATA": str(shared_data),
           "PATH": venv_bin + os.pathsep + os.environ["PATH"]}
    done = subprocess.run(["bash", str(scripts.ROOT / "benchmarks" / "run_all_evals.sh"),
                           "--smoke", str(out)], capture_output=True, text=True, timeout=600,
                          cwd=out, env=env)
    assert done.returncode == 0, f"run_all_evals.sh --smoke failed:\n{done.stderr[-3000:]}"
    assert done.stderr.count("wall time: ") == 6  # each step but the report is timed
    return out, done.stdout


@pytest.mark.parametrize("run", RUNS)
def test_each_eval_step_writes_its_results(smoke_run, run):
    out, _ = smoke_run
    benchmark, units, questions = RUNS[run]
    results = json.loads((out / run / "results.json").read_text())
    assert (results["benchmark"], results["units"], results["questions"]) == (
        benchmark, units, questions)
    assert len((out / run / "units.jsonl").read_text().splitlines()) == units
    assert list(results["systems"]) == SYSTEMS
    for system in results["systems"].values():
        assert 0.0 <= system["overall"][results["headline"]] <= 1.0
    assert (out / run / "results.md").read_text().startswith(
        f"# {benchmark}: {questions} questions, {units} units")


def test_the_ablation_scores_every_configuration_as_the_eval_does(smoke_run, monkeypatch):
    monkeypatch.syspath_prepend(str(scripts.ROOT / "benchmarks"))
    from locomo_ablation import configs

    out, _ = smoke_run
    overall = (out / "locomo-ablation.md").read_text().split("\n\n")[1]
    rows = scripts.table(overall.splitlines())
    assert [r["config"] for r in rows] == list(configs())
    assert all(r["questions"] == "105" and 0.0 <= float(r["overall"]) <= 1.0 for r in rows)
    # the ablation ingests and asks as `graphmem eval locomo` does: the same default recall
    locomo = json.loads((out / "locomo" / "results.json").read_text())
    assert rows[0]["overall"] == f"{locomo['systems']['graphmem']['overall']['recall_all@10']:.3f}"


def test_the_report_puts_every_run_side_by_side(smoke_run):
    _, printed = smoke_run
    rows = scripts.table(printed.splitlines())
    assert [(r["run"], r["system"]) for r in rows] == [
        (run, system) for run in RUNS for system in SYSTEMS]
    for row in rows:
        benchmark, _, questions = RUNS[row["run"]]
        assert row["benchmark"] == benchmark and row["questions"] == str(questions)
        figures = [float(v) for k, v in row.items()
                   if k not in ("run", "benchmark", "setting", "system", "questions", "p50 ms")
                   and v != "–"]
        assert figures and all(0.0 <= f <= 1.0 for f in figures), row
        assert float(row["p50 ms"]) > 0
    settings = {r["run"]: r["setting"] for r in rows}
    assert settings["prefeval-explicit-20"] == "distractors=20, form=explicit"

"""The world, graph and export commands end to end, on a tiny run."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

# importing the command modules registers their commands on the group
from graphmem.cli import cli, graph_commands, world_commands  # noqa: F401


def invoke(*args):
    result = CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.slow
def test_sediment_run_report_draw_export(shared_data, tmp_path):
    tei = shared_data / "hamlet" / "hamlet.tei.xml"
    out = invoke("world", "sediment", "hamlet", "--data", tei, "--out", tmp_path / "sed.json")
    assert "719" in out and json.loads((tmp_path / "sed.json").read_text())["script"]
    store = ["--data-dir", tmp_path / "data"]
    run = tmp_path / "run"
    out = invoke(*store, "world", "run", "hamlet", "--data", tei, "--rounds", 2, "--out", run,
                 "--seed-limit", 15, "--checkpoint-every", 1)
    assert "consensus" in out and (run / "checkpoint" / "memory.jsonl").is_file()
    out = invoke(*store, "world", "run", "hamlet", "--data", tei, "--rounds", 3, "--out", run,
                 "--seed-limit", 15, "--checkpoint-every", 1, "--resume")
    assert json.loads((run / "report.json").read_text())["rounds"] == 3
    out = invoke(*store, "world", "report", run)
    assert "hamlet" in out and (run / "growth.png").is_file()
    out = invoke(*store, "graph", "html", "--ns", "hamlet-consensus", "--out",
                 tmp_path / "g.html", "--view", "conversation")
    assert "nodes" in out and (tmp_path / "g.html").stat().st_size > 10_000
    invoke(*store, "export", "file", "--ns", "hamlet-consensus", "--out", tmp_path / "x.cypher")
    assert "CREATE (:Memory" in (tmp_path / "x.cypher").read_text()
    out = invoke(*store, "export", "file", "--ns", "hamlet-consensus", "--format", "csv",
                 "--out", tmp_path / "csv")
    assert "neo4j-admin database import" in out


def test_bad_world_input_is_one_clear_error(tmp_path):
    result = CliRunner().invoke(cli, ["world", "sediment", "hamlet", "--data",
                                      str(tmp_path / "nope.xml")])
    assert result.exit_code == 1 and "not found" in result.output

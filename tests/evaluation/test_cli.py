"""``graphmem eval``: clear errors with exit code 1, the report command, option parsing."""

from __future__ import annotations

import json
import sys
import types

import pytest
from click.testing import CliRunner

from graphmem.cli import cli, eval_commands
from graphmem.errors import InvalidInput

from .conftest import PERSONAMEM


def invoke(*args):
    return CliRunner().invoke(cli, list(args))


def test_missing_data_dir_names_the_path(tmp_path):
    result = invoke("eval", "locomo", "--data", str(tmp_path / "nowhere"), "--out",
                    str(tmp_path / "out"))
    assert result.exit_code == 1
    assert f"{tmp_path / 'nowhere'}: no such file or directory" in result.output


def test_malformed_file_names_file_and_record(tmp_path, shared_data):
    data = json.loads((shared_data / "locomo" / "conv-26.json").read_text())
    del data["qa"][0]["question"]
    folder = tmp_path / "locomo"
    folder.mkdir()
    (folder / "conv-26.json").write_text(json.dumps(data))
    result = invoke("eval", "locomo", "--data", str(folder), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "conv-26.json" in result.output and "qa[0]" in result.output
    assert "question" in result.output


def test_bad_llm_spec_is_a_clear_error(tmp_path):
    result = invoke("eval", "personamem", "--data", str(PERSONAMEM), "--out",
                    str(tmp_path / "out"), "--llm", "no_such_module_xyz:make")
    assert result.exit_code == 1
    assert "cannot import module 'no_such_module_xyz'" in result.output
    result = invoke("eval", "personamem", "--data", str(PERSONAMEM), "--out",
                    str(tmp_path / "out"), "--llm", "json")
    assert result.exit_code == 1 and "module:factory" in result.output


def test_llm_factory_is_called(monkeypatch):
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    module = types.ModuleType("fake_llm_factory")
    module.make = lambda: FakeListChatModel(responses=["x"])
    monkeypatch.setitem(sys.modules, "fake_llm_factory", module)
    assert isinstance(eval_commands.load_chat_model("fake_llm_factory:make"), FakeListChatModel)
    with pytest.raises(InvalidInput, match="has no callable 'nothing'"):
        eval_commands.load_chat_model("fake_llm_factory:nothing")


def test_k_list_parsing():
    assert eval_commands.parse_k_list("1, 5,10") == (1, 5, 10)
    assert eval_commands.parse_k_list(None) is None
    with pytest.raises(InvalidInput, match="positive"):
        eval_commands.parse_k_list("0,5")
    with pytest.raises(InvalidInput, match="comma-separated"):
        eval_commands.parse_k_list("five")


def test_run_and_report_side_by_side(tmp_path):
    """A PersonaMem fixture run through the CLI, then two runs compared."""
    for name in ("a", "b"):
        result = invoke("eval", "personamem", "--data", str(PERSONAMEM), "--out",
                        str(tmp_path / name), "--systems", "bm25,dense", "--limit", "2",
                        "--no-progress")
        assert result.exit_code == 0, result.output
        assert "personamem: 2 questions in 2 units" in result.output
        assert "skipped 0 bad records" in result.output
    result = invoke("eval", "report", str(tmp_path / "a"), str(tmp_path / "b"))
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert "choice_accuracy" in lines[0]
    assert [line.split("|")[1].strip() for line in lines[2:]] == ["a", "a", "b", "b"]
    assert lines[2].split("|")[6] == lines[4].split("|")[6]  # same data, same score
    missing = invoke("eval", "report", str(tmp_path / "none"))
    assert missing.exit_code == 1 and "no results.json" in missing.output


def test_skip_bad_is_reported(tmp_path, shared_data, locomo_small):
    data = json.loads((locomo_small / "conv-26.json").read_text())
    data["qa"].append({"question": "Broken?", "answer": "x", "evidence": [], "category": 1})
    folder = tmp_path / "locomo"
    folder.mkdir()
    (folder / "conv-26.json").write_text(json.dumps(data))
    result = invoke("eval", "locomo", "--data", str(folder), "--out", str(tmp_path / "out"),
                    "--skip-bad", "--systems", "bm25", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "skipped 1 bad records" in result.output
    assert "Skipped 1 bad records" in (tmp_path / "out" / "results.md").read_text()
    assert json.loads((tmp_path / "out" / "results.json").read_text())["skipped_records"] == 1


def test_every_samples_across_the_benchmark_and_is_checked(tmp_path, shared_data):
    from graphmem.evaluation.runner import chosen_units
    from graphmem.ingestion.benchmarks import load_prefeval

    units = load_prefeval(shared_data / "prefeval", n_distractors=0, seed=0).units
    sample = chosen_units(units, every=50)
    assert len(sample) == len(range(0, len(units), 50))
    assert len({u.id.split("/")[2] for u in sample}) >= 12  # spread over the 16 topics
    assert chosen_units(units, every=50, limit=3) == sample[:3]
    result = invoke("eval", "prefeval", "--data", str(shared_data / "prefeval"), "--out",
                    str(tmp_path / "out"), "--every", "0")
    assert result.exit_code != 0
    assert "--every must be 1 or more, got 0" in result.output

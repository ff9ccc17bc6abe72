"""LongMemEval loader, on a small file in the official schema (the real files are not here)."""

from __future__ import annotations

import copy
import json
from datetime import datetime
from pathlib import Path

import pytest

from graphmem.errors import BenchmarkDataError
from graphmem.ingestion.benchmarks.longmemeval import (
    QUESTION_TYPES,
    load_longmemeval,
    parse_longmemeval_time,
)

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "longmemeval" / "longmemeval_s.json"


@pytest.fixture
def records() -> list[dict]:
    return json.loads(FIXTURE.read_text())


def write(tmp_path: Path, records: list[dict]) -> Path:
    path = tmp_path / "longmemeval_s.json"
    path.write_text(json.dumps(records))
    return path


def test_fixture_units_questions_and_evidence():
    report = load_longmemeval(FIXTURE)
    assert report.skipped == []
    assert len(report.units) == 6
    assert {u.questions[0].category for u in report.units} == QUESTION_TYPES
    for unit in report.units:
        (q,) = unit.questions
        assert unit.id == q.id and unit.benchmark == "longmemeval"
        turns = {t.id: t for t in unit.turns}
        assert all(turns[e].meta["has_answer"] for e in q.evidence)
        assert q.abstention == q.id.endswith("_abs")
        assert q.asked_at > max(t.at for t in unit.turns)
    by_id = {u.id: u for u in report.units}
    ssu = by_id["e47becba"].questions[0]
    assert ssu.evidence == ("answer_280352e9:0",)
    assert ssu.evidence_sessions == ("answer_280352e9",)
    assert ssu.asked_at == datetime(2023, 5, 30, 23, 40)
    assert by_id["gpt4_2655b836"].questions[0].evidence == ("answer_4be1b6b4_1:0",
                                                            "answer_4be1b6b4_2:0")
    assistant = by_id["7161e7e2"]
    (evidence,) = assistant.questions[0].evidence
    assert next(t for t in assistant.turns if t.id == evidence).speaker == "assistant"
    assert by_id["6a1eabeb"].questions[0].answer == "3"  # a number in the file
    abstention = by_id["0a995998_abs"].questions[0]
    assert abstention.abstention and abstention.evidence == ()


def test_turns_carry_session_times_in_order():
    unit = load_longmemeval(FIXTURE).units[0]
    assert [t.id for t in unit.turns[:3]] == ["sharegpt_yywfYh2_0:0", "sharegpt_yywfYh2_0:1",
                                              "answer_280352e9:0"]
    assert unit.turns[0].at == datetime(2023, 5, 20, 2, 21)
    assert [t.speaker for t in unit.turns[:2]] == ["user", "assistant"]
    assert unit.agents == ("user", "assistant")


def test_repeated_session_gets_a_distinct_id():
    report = load_longmemeval(FIXTURE)
    unit = next(u for u in report.units if u.id == "6a1eabeb")
    sessions = [t.session for t in unit.turns]
    assert "sharegpt_SYbLHTK_0" in sessions and "sharegpt_SYbLHTK_0#2" in sessions
    assert len({t.id for t in unit.turns}) == len(unit.turns)
    assert report.notes["repeated_sessions_renamed"] == 1


def test_empty_haystack_is_a_clear_error(tmp_path, records):
    records[0].update(haystack_sessions=[], haystack_session_ids=[], haystack_dates=[])
    with pytest.raises(BenchmarkDataError, match=r"longmemeval_s\.json: record 0 "
                       r"\(question_id=e47becba\): field 'haystack_sessions' is empty"):
        load_longmemeval(write(tmp_path, records))
    records[0].update(haystack_sessions=[[]], haystack_session_ids=["s"],
                      haystack_dates=["2023/05/20 (Sat) 02:21"])
    with pytest.raises(BenchmarkDataError, match="holds only empty sessions"):
        load_longmemeval(write(tmp_path, records))


def test_unknown_question_type_is_a_clear_error(tmp_path, records):
    records[2]["question_type"] = "multi-hop"
    with pytest.raises(BenchmarkDataError) as err:
        load_longmemeval(write(tmp_path, records))
    message = str(err.value)
    assert "record 2 (question_id=6a1eabeb)" in message
    assert "field 'question_type' is 'multi-hop'" in message
    assert "single-session-user" in message


def test_missing_field_in_record_n_and_skip_bad(tmp_path, records):
    del records[3]["question_date"]
    records[4]["haystack_sessions"][1][0]["role"] = "system"
    path = write(tmp_path, records)
    with pytest.raises(BenchmarkDataError, match=r"record 3 \(question_id=75832dbd\): "
                       r"field 'question_date' is missing"):
        load_longmemeval(path)
    report = load_longmemeval(path, skip_bad=True)
    assert [u.id for u in report.units] == ["e47becba", "gpt4_2655b836", "6a1eabeb",
                                            "0a995998_abs"]
    assert len(report.skipped) == 2
    assert "record 4 (question_id=7161e7e2) haystack_sessions[1][0]: field 'role'" in \
        report.skipped[1]


def test_schema_mismatches(tmp_path, records):
    bad = copy.deepcopy(records)
    bad[0]["haystack_dates"].pop()
    with pytest.raises(BenchmarkDataError, match="must be parallel"):
        load_longmemeval(write(tmp_path, bad))
    bad = copy.deepcopy(records)
    bad[1]["haystack_dates"][0] = "April 1st"
    with pytest.raises(BenchmarkDataError, match=r"field 'haystack_dates\[0\]' is not a date"):
        load_longmemeval(write(tmp_path, bad))
    bad = copy.deepcopy(records)
    bad[1]["haystack_sessions"][0][0]["has_answer"] = "yes"
    with pytest.raises(BenchmarkDataError, match="field 'has_answer' should be true or false"):
        load_longmemeval(write(tmp_path, bad))
    path = tmp_path / "longmemeval_oracle.json"
    path.write_text(json.dumps({"questions": records}))
    with pytest.raises(BenchmarkDataError, match="not a list of questions"):
        load_longmemeval(path)
    with pytest.raises(BenchmarkDataError, match="file not found"):
        load_longmemeval(tmp_path / "longmemeval_m.json")


def test_parse_time():
    assert parse_longmemeval_time("2023/05/20 (Sat) 02:21") == datetime(2023, 5, 20, 2, 21)
    with pytest.raises(ValueError):
        parse_longmemeval_time("20 May 2023")


def test_load_benchmark_dispatches_by_name():
    from graphmem.errors import InvalidInput
    from graphmem.ingestion.benchmarks import load_benchmark

    assert len(load_benchmark("longmemeval", FIXTURE).units) == 6
    with pytest.raises(InvalidInput, match="unknown benchmark 'locomo2'"):
        load_benchmark("locomo2", FIXTURE)

"""PersonaMem loader, on small files in the official schema (the real files are not here)."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from graphmem.errors import BenchmarkDataError
from graphmem.ingestion.benchmarks.personamem import load_personamem, parse_options

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "personamem"
QUESTIONS = FIXTURES / "questions_32k.csv"
CONTEXT_A = "c26f05c585ec8f61860984e03cc33c9aaad5d416d8d3f505b7e580b6928ec091"


@pytest.fixture
def copy_dir(tmp_path) -> Path:
    for name in ("questions_32k.csv", "shared_contexts_32k.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    return tmp_path


def edit_rows(path: Path, change) -> None:
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = reader.fieldnames, list(reader)
    change(rows)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def test_fixture_units_see_only_their_prefix():
    report = load_personamem(QUESTIONS)
    assert report.skipped == []
    assert [len(u.turns) for u in report.units] == [3, 7, 7, 4, 2]
    assert report.notes["shared_contexts"] == 2  # the unreferenced context is not parsed
    first, second = report.units[0], report.units[1]
    assert first.turns == second.turns[:3]
    assert first.turns[0] is second.turns[0]  # parsed once, shared
    assert first.turns[0].speaker == "system"
    assert first.turns[1].id == f"{CONTEXT_A}:1"
    assert first.meta == {"shared_context_id": CONTEXT_A, "end_index": 3, "persona_id": "3",
                          "file": str(QUESTIONS)}
    # the later preference change is outside the first question's prefix
    assert not any("gardening" in t.text for t in first.turns)
    assert any("gardening" in t.text for t in second.turns)


def test_options_and_correct_answer():
    units = load_personamem(QUESTIONS, FIXTURES / "shared_contexts_32k.jsonl").units
    q = units[0].questions[0]
    assert q.id == "2e72a433-c5ce-4c3c-adbe-4fc1dc84a879"
    assert q.category == "recall_user_shared_facts"
    assert len(q.options) == 4 and q.options[0].startswith("(a) Certainly, it's like")
    assert q.correct_option == 2 and q.answer == q.options[2]
    assert q.evidence == () and q.asker == "user"
    assert q.meta["topic"] == "therapy"
    assert q.meta["distance_to_ref_proportion_in_context"] == "67.22%"
    assert [u.questions[0].correct_option for u in units] == [2, 1, 0, 3, 1]


def test_parse_options_reads_python_and_json_lists():
    assert parse_options("['(a) x', \"(b) it's\"]") == ["(a) x", "(b) it's"]
    assert parse_options('["(a) x", "(b) y"]') == ["(a) x", "(b) y"]
    with pytest.raises(ValueError):
        parse_options("(a) x, (b) y")


def test_missing_column_names_the_column(tmp_path):
    text = QUESTIONS.read_text().replace("end_index_in_shared_context", "end_index", 1)
    (tmp_path / "questions_32k.csv").write_text(text)
    shutil.copy(FIXTURES / "shared_contexts_32k.jsonl", tmp_path)
    with pytest.raises(BenchmarkDataError, match="column\\(s\\) end_index_in_shared_context "
                       "missing from the header"):
        load_personamem(tmp_path / "questions_32k.csv")


def test_bad_row_is_named_and_skippable(copy_dir):
    path = copy_dir / "questions_32k.csv"

    def break_row(rows):
        rows[1]["end_index_in_shared_context"] = "99"
        rows[3]["correct_answer"] = "(e)"
        rows[4]["all_options"] = "(a) Porto (b) Lisbon"

    edit_rows(path, break_row)
    with pytest.raises(BenchmarkDataError, match=r"questions_32k\.csv: row 2 \(question_id="
                       r"ab5281d2-b2dc-4965-b8a2-9b7e01e3f528\): field "
                       r"'end_index_in_shared_context' is 99; the shared context has 7"):
        load_personamem(path)
    report = load_personamem(path, skip_bad=True)
    assert len(report.units) == 2 and len(report.skipped) == 3
    assert "field 'correct_answer' is '(e)'" in report.skipped[1]
    assert "field 'all_options' is not a list literal" in report.skipped[2]


def test_unknown_context_and_empty_cell(copy_dir):
    path = copy_dir / "questions_32k.csv"
    edit_rows(path, lambda rows: rows[0].update(shared_context_id="feedbeef"))
    with pytest.raises(BenchmarkDataError, match="'feedbeef' is not in .*shared_contexts_32k"):
        load_personamem(path)
    edit_rows(path, lambda rows: rows[0].update(user_question_or_message=""))
    with pytest.raises(BenchmarkDataError, match="row 1 .*field 'user_question_or_message' "
                       "is empty"):
        load_personamem(path)


def test_bad_context_line(copy_dir):
    contexts = copy_dir / "shared_contexts_32k.jsonl"
    lines = contexts.read_text().splitlines()
    obj = json.loads(lines[2])
    (key,) = obj
    obj[key][1]["role"] = "narrator"
    contexts.write_text("\n".join([lines[0], lines[1], json.dumps(obj)]) + "\n")
    with pytest.raises(BenchmarkDataError, match=r"shared_contexts_32k\.jsonl: line 3 "
                       r"\(shared_context_id=9f2c.*\): field '9f2c.*\[1\]\.role' is 'narrator'"):
        load_personamem(copy_dir / "questions_32k.csv")
    report = load_personamem(copy_dir / "questions_32k.csv", skip_bad=True)
    assert len(report.units) == 3  # the two questions on the broken context go too
    assert len(report.skipped) == 3


def test_missing_files(tmp_path):
    with pytest.raises(BenchmarkDataError, match="file not found"):
        load_personamem(tmp_path / "questions_128k.csv")
    shutil.copy(QUESTIONS, tmp_path / "questions_128k.csv")
    with pytest.raises(BenchmarkDataError, match="shared_contexts_128k.jsonl: file not found"):
        load_personamem(tmp_path / "questions_128k.csv")
    shutil.copy(QUESTIONS, tmp_path / "my_questions.csv")
    with pytest.raises(BenchmarkDataError, match="pass contexts= explicitly"):
        load_personamem(tmp_path / "my_questions.csv")


def test_unused_contexts_are_not_parsed(copy_dir):
    contexts = copy_dir / "shared_contexts_32k.jsonl"
    lines = contexts.read_text().splitlines()
    lines[1] = lines[1][:90] + " <truncated download"  # the context no question uses
    contexts.write_text("\n".join(lines) + "\n")
    assert len(load_personamem(copy_dir / "questions_32k.csv").units) == 5

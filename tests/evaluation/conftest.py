"""Small slices of the real benchmark data, written to tmp dirs (never into the repo)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmarks.slices import first_sessions

FIXTURES = Path(__file__).resolve().parent.parent / "ingestion" / "fixtures"
LONGMEMEVAL = FIXTURES / "longmemeval" / "longmemeval_s.json"
PERSONAMEM = FIXTURES / "personamem" / "questions_32k.csv"


def slice_locomo(source: Path, sessions: int, max_questions: int | None = None) -> dict:
    """One LoCoMo conversation cut to its first sessions and the questions answered there
    (the first ``max_questions`` of them, if given)."""
    sliced = first_sessions(json.loads(source.read_text()), sessions)
    if max_questions:
        sliced["qa"] = sliced["qa"][:max_questions]
    return sliced


@pytest.fixture(scope="session")
def locomo_slice(shared_data, tmp_path_factory) -> Path:
    """conv-26, sessions 1-2 (35 turns), the 20 questions whose evidence lies there."""
    folder = tmp_path_factory.mktemp("locomo")
    sliced = slice_locomo(shared_data / "locomo" / "conv-26.json", sessions=2)
    (folder / "conv-26.json").write_text(json.dumps(sliced))
    return folder


@pytest.fixture(scope="session")
def locomo_small(shared_data, tmp_path_factory) -> Path:
    """conv-26, session 1 (18 turns), its first 3 questions: for the LLM path."""
    folder = tmp_path_factory.mktemp("locomo_small")
    sliced = slice_locomo(shared_data / "locomo" / "conv-26.json", sessions=1, max_questions=3)
    (folder / "conv-26.json").write_text(json.dumps(sliced))
    return folder

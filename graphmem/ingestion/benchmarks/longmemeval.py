"""LongMemEval (xiaowu0162/LongMemEval): one question per timestamped chat history.

Reads ``longmemeval_s.json``, ``longmemeval_m.json``, ``longmemeval_oracle.json`` (and the
``*_cleaned.json`` re-release): a JSON list of objects with ``question_id``,
``question_type``, ``question``, ``answer``, ``question_date``, ``haystack_session_ids``,
``haystack_dates``, ``haystack_sessions`` (each session a list of turns ``{role,
content, has_answer?}``) and ``answer_session_ids``. A ``question_id`` ending in ``_abs``
marks an abstention question.

One `Unit` per question with its own haystack. Turn ids are ``<session_id>:<index>``
with a 0-based index into the session as stored (upstream's retrieval code names the
same turn ``<session_id>_<index + 1>``). A session id that repeats inside one haystack
(13 histories of longmemeval_s have an identical filler session twice) gets ``#2`` appended
to the repeat, so turn ids stay unique; repeats are counted in `LoadReport.notes`.
Evidence is every turn with ``has_answer: true``; `evidence_sessions` is
``answer_session_ids``. Dates such as ``"2023/05/20 (Sat) 02:21"`` become datetimes.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from graphmem.ingestion.benchmarks._common import (
    answer_text,
    bad_file,
    bad_record,
    collect_records,
    read_json,
    require,
)
from graphmem.ingestion.benchmarks.model import LoadReport, Question, Turn, Unit

BENCHMARK = "longmemeval"
QUESTION_TYPES = frozenset({
    "single-session-user", "single-session-assistant", "single-session-preference",
    "temporal-reasoning", "knowledge-update", "multi-session",
})
ROLES = frozenset({"user", "assistant"})
FILE_HINT = ("expected longmemeval_s.json, longmemeval_m.json or longmemeval_oracle.json "
             "from the official release (a JSON list of question objects)")
_DATE = re.compile(r"\s*(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\(\w+\))?\s*(\d{1,2}):(\d{2})\s*")


def load_longmemeval(path: str | Path, *, skip_bad: bool = False) -> LoadReport:
    """Load one LongMemEval file; one Unit per question with its haystack.

    Raises `BenchmarkDataError` naming file, record (index and question_id) and field;
    with ``skip_bad=True`` bad questions are left out and listed in `LoadReport.skipped`.
    """
    path = Path(path)
    data = read_json(path, FILE_HINT)
    if not isinstance(data, list):
        raise bad_file(path, f"top level is a {type(data).__name__}, not a list of questions",
                       FILE_HINT)
    report = LoadReport(units=[])
    report.units = collect_records(
        list(enumerate(data)), lambda item: _parse_question(item[1], item[0], path, report),
        skip_bad=skip_bad, skipped=report.skipped)
    return report


def parse_longmemeval_time(text: str) -> datetime:
    """Parse a LongMemEval date such as ``"2023/05/20 (Sat) 02:21"``."""
    match = _DATE.fullmatch(text)
    if not match:
        raise ValueError(f"not a LongMemEval date: {text!r}")
    year, month, day, hour, minute = (int(g) for g in match.groups())
    return datetime(year, month, day, hour, minute)


def _parse_question(raw: Any, index: int, path: Path, report: LoadReport) -> Unit:
    where = f"record {index}"
    qid = require(raw, "question_id", str, path, where)
    where = f"record {index} (question_id={qid})"
    qtype = require(raw, "question_type", str, path, where)
    if qtype not in QUESTION_TYPES:
        raise bad_record(path, where, "question_type", f"is {qtype!r}, not one of "
                         f"{', '.join(sorted(QUESTION_TYPES))}",
                         "check that this is a LongMemEval file, or fix the record")
    text = require(raw, "question", str, path, where)
    answer = answer_text(require(raw, "answer", (str, int, float), path, where,
                                 allow_empty=True))
    asked_at = _parse_date(require(raw, "question_date", str, path, where), path, where,
                           "question_date")
    session_ids = require(raw, "haystack_session_ids", list, path, where, allow_empty=True)
    dates = require(raw, "haystack_dates", list, path, where, allow_empty=True)
    sessions = require(raw, "haystack_sessions", list, path, where, allow_empty=True)
    if not sessions:
        raise bad_record(path, where, "haystack_sessions", "is empty: the question has no chat "
                         "history to remember")
    if not len(session_ids) == len(dates) == len(sessions):
        raise bad_record(path, where, "haystack_sessions", f"has {len(sessions)} sessions but "
                         f"haystack_session_ids has {len(session_ids)} and haystack_dates "
                         f"{len(dates)}; the three lists must be parallel")
    answer_sessions = require(raw, "answer_session_ids", list, path, where, allow_empty=True)
    turns = _parse_haystack(session_ids, dates, sessions, path, where, report)
    if not turns:
        raise bad_record(path, where, "haystack_sessions", "holds only empty sessions: the "
                         "question has no chat history to remember")
    evidence = tuple(t.id for t in turns if t.meta.get("has_answer"))
    abstention = qid.endswith("_abs")
    if not evidence and not abstention:
        report.notes["questions_without_turn_evidence"] += 1
    known_sessions = set(session_ids)
    report.notes["answer_sessions_outside_haystack"] += sum(
        1 for s in answer_sessions if s not in known_sessions)
    question = Question(id=qid, text=text, category=qtype, evidence=evidence, answer=answer,
                        asked_at=asked_at, asker="user",
                        evidence_sessions=tuple(str(s) for s in answer_sessions),
                        abstention=abstention)
    return Unit(id=qid, benchmark=BENCHMARK, agents=("user", "assistant"), turns=tuple(turns),
                questions=(question,), meta={"file": str(path), "variant": path.stem})


def _parse_haystack(session_ids: list[Any], dates: list[Any], sessions: list[Any], path: Path,
                    where: str, report: LoadReport) -> list[Turn]:
    turns: list[Turn] = []
    seen: dict[str, int] = {}
    for k, (sid, date, session) in enumerate(zip(session_ids, dates, sessions)):
        if not isinstance(sid, str) or not sid:
            raise bad_record(path, where, f"haystack_session_ids[{k}]", f"should be a session "
                             f"id string, got {sid!r}")
        if not isinstance(date, str):
            raise bad_record(path, where, f"haystack_dates[{k}]", f"should be a date string, "
                             f"got {date!r}")
        at = _parse_date(date, path, where, f"haystack_dates[{k}]")
        if not isinstance(session, list):
            raise bad_record(path, where, f"haystack_sessions[{k}]", f"should be a list of "
                             f"turns, got {type(session).__name__}")
        seen[sid] = seen.get(sid, 0) + 1
        key = sid if seen[sid] == 1 else f"{sid}#{seen[sid]}"
        if seen[sid] > 1:
            report.notes["repeated_sessions_renamed"] += 1
        if not session:
            report.notes["empty_sessions"] += 1
        for j, raw in enumerate(session):
            turns.append(_parse_turn(raw, key, j, at, path,
                                     f"{where} haystack_sessions[{k}][{j}]"))
    return turns


def _parse_turn(raw: Any, session: str, j: int, at: datetime, path: Path, where: str) -> Turn:
    role = require(raw, "role", str, path, where)
    if role not in ROLES:
        raise bad_record(path, where, "role", f"is {role!r}, not 'user' or 'assistant'")
    content = require(raw, "content", str, path, where, allow_empty=True)
    has_answer = raw.get("has_answer", False)
    if not isinstance(has_answer, bool):
        raise bad_record(path, where, "has_answer", f"should be true or false, got {has_answer!r}")
    meta = {"has_answer": True} if has_answer else {}
    return Turn(id=f"{session}:{j}", speaker=role, text=content, at=at, session=session,
                meta=meta)


def _parse_date(text: str, path: Path, where: str, field: str) -> datetime:
    try:
        return parse_longmemeval_time(text)
    except ValueError:
        raise bad_record(path, where, field, f"is not a date like '2023/05/20 (Sat) 02:21': "
                         f"{text!r}") from None

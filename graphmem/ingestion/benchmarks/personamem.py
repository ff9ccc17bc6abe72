"""PersonaMem (bowen-upenn/PersonaMem): multiple-choice questions over a shared persona chat.

Reads ``questions_{32k,128k,1M}.csv`` with its ``shared_contexts_{...}.jsonl``. Schema as
published (README and ``inference_standalone_openai.py`` of the official repository):

* the CSV has the columns in `REQUIRED_COLUMNS` (extra columns, such as the
  ``stereotypical`` of some releases, are kept in meta);
* each JSONL line is one JSON object mapping one ``shared_context_id`` to its list of
  messages ``{role, content}`` (roles ``system``, ``user``, ``assistant``; the first message
  is usually the ``system`` persona description);
* a question sees ``messages[:end_index_in_shared_context]`` (upstream slices exactly so);
* ``all_options`` is a string holding a Python list literal of four options
  ``"(a) ..."`` .. ``"(d) ..."``; ``correct_answer`` is ``"(c)"``.

One `Unit` per question, holding its shared-context prefix. Contexts are parsed once and
their `Turn` objects shared by every question on that context. Turn ids are
``<shared_context_id>:<index>`` (0-based position in the shared context). PersonaMem has
no evidence annotation, so `Question.evidence` is empty; options keep their ``(a)``
labels; `correct_option` is the 0-based index of ``correct_answer``.
"""

from __future__ import annotations

import ast
import csv
import json
import re
from functools import partial
from pathlib import Path

from graphmem.ingestion.benchmarks._common import bad_file, bad_record, collect_records
from graphmem.ingestion.benchmarks.model import LoadReport, Question, Turn, Unit

BENCHMARK = "personamem"
REQUIRED_COLUMNS = (
    "persona_id", "question_id", "question_type", "topic", "context_length_in_tokens",
    "context_length_in_letters", "distance_to_ref_in_blocks", "distance_to_ref_in_tokens",
    "num_irrelevant_tokens", "distance_to_ref_proportion_in_context",
    "user_question_or_message", "correct_answer", "all_options", "shared_context_id",
    "end_index_in_shared_context",
)
ROLES = frozenset({"system", "user", "assistant"})
FILE_HINT = ("expected questions_{32k,128k,1M}.csv and shared_contexts_{32k,128k,1M}.jsonl "
             "from the official PersonaMem release")
_LABEL = re.compile(r"\(\s*([a-z])\s*\)")
_LINE_KEY = re.compile(r'\s*\{\s*"([^"\\]+)"\s*:')


def load_personamem(questions: str | Path, contexts: str | Path | None = None, *,
                    skip_bad: bool = False) -> LoadReport:
    """Load PersonaMem questions with their shared-context prefixes.

    `contexts` defaults to ``shared_contexts_<size>.jsonl`` beside ``questions_<size>.csv``.
    Raises `BenchmarkDataError` naming file, row (and question_id) and column; with
    ``skip_bad=True`` bad rows are left out and listed in `LoadReport.skipped`.
    """
    questions = Path(questions)
    contexts = Path(contexts) if contexts is not None else default_contexts_path(questions)
    rows = _read_rows(questions)
    wanted = {row.get("shared_context_id", "").strip() for _, row in rows}
    report = LoadReport(units=[])
    shared = _read_contexts(contexts, wanted, skip_bad=skip_bad, skipped=report.skipped)
    report.units = collect_records(
        rows, lambda item: _parse_row(item[1], item[0], questions, contexts, shared),
        skip_bad=skip_bad, skipped=report.skipped)
    report.notes["shared_contexts"] = len(shared)
    return report


def default_contexts_path(questions: Path) -> Path:
    """``.../questions_32k.csv`` -> ``.../shared_contexts_32k.jsonl``."""
    match = re.fullmatch(r"questions_(.+)\.csv", questions.name)
    if not match:
        raise bad_file(questions, "cannot tell which shared_contexts_*.jsonl belongs to this "
                       "file", "pass contexts= explicitly")
    return questions.with_name(f"shared_contexts_{match.group(1)}.jsonl")


def parse_options(text: str) -> list[str]:
    """The ``all_options`` cell: a Python (or JSON) list literal of option strings."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            raise ValueError("not a list literal") from None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValueError("not a list of strings")
    return list(value)


def _read_rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    """(data row number, row) for every CSV row; checks the header once."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise bad_file(path, f"column(s) {', '.join(missing)} missing from the header",
                               FILE_HINT)
            return list(enumerate(reader, start=1))
    except FileNotFoundError:
        raise bad_file(path, "file not found", FILE_HINT) from None


def _read_contexts(path: Path, wanted: set[str], *, skip_bad: bool,
                   skipped: list[str]) -> dict[str, tuple[Turn, ...]]:
    """Parse the JSONL lines holding wanted contexts into shared Turn tuples."""
    shared: dict[str, tuple[Turn, ...]] = {}
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError:
        raise bad_file(path, "file not found", FILE_HINT) from None
    with handle:
        for number, line in enumerate(handle, start=1):
            key = _LINE_KEY.match(line)
            if not line.strip() or key and key.group(1) not in wanted:
                continue  # skip unused contexts without parsing them (1M lines are large)
            parsed = collect_records(
                [line], partial(_parse_context_line, number=number, path=path, wanted=wanted),
                skip_bad=skip_bad, skipped=skipped)
            if parsed and parsed[0] is not None:
                shared.update(parsed[0])
    return shared


def _parse_context_line(line: str, number: int, path: Path,
                        wanted: set[str]) -> dict[str, tuple[Turn, ...]] | None:
    where = f"line {number}"
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise bad_record(path, where, "(line)", f"is not valid JSON ({exc.msg})") from None
    if not isinstance(obj, dict) or len(obj) != 1:
        raise bad_record(path, where, "(line)", "should be one JSON object mapping one "
                         "shared_context_id to its message list")
    (context_id, messages), = obj.items()
    if context_id not in wanted:
        return None
    where = f"line {number} (shared_context_id={context_id})"
    if not isinstance(messages, list):
        raise bad_record(path, where, context_id, "should be a list of messages")
    turns = []
    for k, message in enumerate(messages):
        if not isinstance(message, dict):
            raise bad_record(path, where, f"{context_id}[{k}]", "should be {role, content}")
        role, content = message.get("role"), message.get("content")
        if role not in ROLES:
            raise bad_record(path, where, f"{context_id}[{k}].role", f"is {role!r}, not one of "
                             "system, user, assistant")
        if not isinstance(content, str):
            raise bad_record(path, where, f"{context_id}[{k}].content", "is missing or not a "
                             "string")
        turns.append(Turn(id=f"{context_id}:{k}", speaker=role, text=content, at=None,
                          session=context_id))
    return {context_id: tuple(turns)}


def _parse_row(row: dict[str, str], number: int, path: Path, contexts_path: Path,
               shared: dict[str, tuple[Turn, ...]]) -> Unit:
    qid = (row.get("question_id") or "").strip()
    where = f"row {number} (question_id={qid})" if qid else f"row {number}"
    for column in ("question_id", "question_type", "user_question_or_message",
                   "correct_answer", "all_options", "shared_context_id",
                   "end_index_in_shared_context"):
        if not (row.get(column) or "").strip():
            raise bad_record(path, where, column, "is empty")
    context_id = row["shared_context_id"].strip()
    if context_id not in shared:
        raise bad_record(path, where, "shared_context_id", f"{context_id!r} is not in "
                         f"{contexts_path}", "use the shared_contexts file of the same size")
    context = shared[context_id]
    try:
        end = int(row["end_index_in_shared_context"])
    except ValueError:
        raise bad_record(path, where, "end_index_in_shared_context",
                         f"is not an integer: {row['end_index_in_shared_context']!r}") from None
    if not 1 <= end <= len(context):
        raise bad_record(path, where, "end_index_in_shared_context", f"is {end}; the shared "
                         f"context has {len(context)} messages")
    try:
        options = parse_options(row["all_options"])
    except ValueError as exc:
        raise bad_record(path, where, "all_options", f"is {exc}: {row['all_options'][:80]!r}") \
            from None
    correct = _option_index(row["correct_answer"], options)
    if correct is None:
        raise bad_record(path, where, "correct_answer", f"is {row['correct_answer']!r}, which "
                         f"names none of the {len(options)} options")
    meta = {k: v for k, v in row.items() if k not in _QUESTION_FIELDS and k is not None}
    question = Question(id=qid, text=row["user_question_or_message"],
                        category=row["question_type"].strip(), evidence=(),
                        answer=options[correct], asked_at=None, asker="user",
                        options=tuple(options), correct_option=correct, meta=meta)
    return Unit(id=qid, benchmark=BENCHMARK, agents=("user", "assistant"),
                turns=context[:end], questions=(question,),
                meta={"shared_context_id": context_id, "end_index": end,
                      "persona_id": row["persona_id"], "file": str(path)})


_QUESTION_FIELDS = frozenset({"question_id", "question_type", "user_question_or_message",
                              "correct_answer", "all_options", "end_index_in_shared_context"})


def _option_index(label: str, options: list[str]) -> int | None:
    """``"(c)"`` -> the index of the option labelled ``(c)`` (else position c)."""
    label = label.strip().lower()
    match = _LABEL.fullmatch(label) or re.fullmatch(r"([a-z])", label)
    if not match:
        return None
    letter = match.group(1)
    for i, option in enumerate(options):
        head = _LABEL.match(option.strip().lower())
        if head and head.group(1) == letter:
            return i
    position = ord(letter) - ord("a")
    return position if position < len(options) else None

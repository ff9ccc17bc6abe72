"""Helpers every loader shares: reading files, checked field access, error messages.

Every schema problem becomes one `BenchmarkDataError` that names the file, the record
(index or id), the field and what to do. `collect_records` turns those errors into
skipped-record messages when the caller asked for ``skip_bad``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from graphmem.errors import BenchmarkDataError

T = TypeVar("T")
R = TypeVar("R")

SKIP_HINT = "fix the record, or load with skip_bad=True (--skip-bad) to leave it out"


def bad_record(path: Path | str, record: str, field: str, problem: str,
               hint: str = SKIP_HINT) -> BenchmarkDataError:
    """Build the error for one bad field of one record."""
    return BenchmarkDataError(f"{path}: {record}: field '{field}' {problem}; {hint}")


def bad_file(path: Path | str, problem: str, hint: str) -> BenchmarkDataError:
    """Build the error for a file that cannot be read as the benchmark at all."""
    return BenchmarkDataError(f"{path}: {problem}; {hint}")


def read_json(path: Path, hint: str) -> Any:
    """Parse a JSON file, turning a missing or broken file into a clear error."""
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        raise bad_file(path, "file not found", hint) from None
    except json.JSONDecodeError as exc:
        raise bad_file(path, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
                       hint) from None


def require(record: Any, key: str, kind: type | tuple[type, ...], path: Path | str,
            where: str, *, allow_empty: bool = False) -> Any:
    """Return ``record[key]`` if it exists and has the expected type (and is not empty)."""
    if not isinstance(record, Mapping):
        raise bad_record(path, where, key, f"cannot be read: the record is a "
                         f"{type(record).__name__}, not a JSON object")
    if key not in record or record[key] is None:
        raise bad_record(path, where, key, "is missing")
    value = record[key]
    if not isinstance(value, kind) or isinstance(value, bool) and bool not in _as_tuple(kind):
        names = "/".join(k.__name__ for k in _as_tuple(kind))
        raise bad_record(path, where, key, f"should be {names}, got {type(value).__name__}")
    if not allow_empty and isinstance(value, (str, list, dict)) and not value:
        raise bad_record(path, where, key, "is empty")
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def collect_records(records: Iterable[T], parse: Callable[[T], R], *, skip_bad: bool,
                    skipped: list[str]) -> list[R]:
    """Parse each record; on a bad one raise, or (skip_bad) note it in `skipped` and go on."""
    parsed: list[R] = []
    for record in records:
        try:
            parsed.append(parse(record))
        except BenchmarkDataError as exc:
            if not skip_bad:
                raise
            skipped.append(str(exc))
    return parsed


def answer_text(value: Any) -> str:
    """Answers are strings in the harness; some files store numbers (LoCoMo ``2022``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)

"""LoCoMo (snap-research/locomo): long two-person conversations and their QA.

Reads both published layouts:

* a directory of per-conversation files ``conv-*.json`` (the ``locomo10_v2`` format):
  ``speaker_a``, ``speaker_b``, ``session_N`` (turns), ``session_N_date_time``, ``qa``;
* the single file ``locomo10.json``: a list of samples ``{sample_id, conversation: {...},
  qa, ...}`` whose ``conversation`` holds the same keys.

One `Unit` per conversation. Turn ids are LoCoMo's ``dia_id`` (``D3:1``); every turn of a
session carries the session's time (``"1:56 pm on 8 May, 2023"``). Image turns keep the
BLIP caption in the text (``... [shares a photo: <caption>]``) and the URL in meta.

Questions: categories ``"1"``–``"5"`` as in the paper's files (1 multi-hop, 2 temporal,
3 open-domain, 4 single-hop, 5 adversarial). Category 5 has no ``answer``; its
`Question.answer` is the file's ``adversarial_answer`` — the tempting answer about the
*other* speaker — and `abstention` is True: the right reply is that the conversation does
not say. Evidence ids are repaired (``"D8:6; D9:17"`` split, ``"D:11:26"`` and
``"D30:05"`` made canonical, unknown ids dropped) and the repairs counted in
`LoadReport.notes`; a question left with no evidence id is a bad record.
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

BENCHMARK = "locomo"
CATEGORIES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop",
              "5": "adversarial"}
FILE_HINT = ("expected the LoCoMo release: a directory of conv-*.json files or locomo10.json "
             "from snap-research/locomo data/")
_SESSION_KEY = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D(\d+):(\d+)")
_LOOSE_DIA_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
_DATE_FORMAT = "%I:%M %p on %d %B, %Y"


def load_locomo(path: str | Path, *, skip_bad: bool = False) -> LoadReport:
    """Load LoCoMo from a directory of ``conv-*.json`` or from ``locomo10.json``.

    Raises `BenchmarkDataError` naming file, record and field for a bad record; with
    ``skip_bad=True`` a bad conversation or question is left out and listed in
    `LoadReport.skipped` instead.
    """
    path = Path(path)
    report = LoadReport(units=[])
    for file, index, sample in _read_samples(path):
        units = collect_records([(file, index, sample)],
                                lambda rec: _parse_sample(*rec, report, skip_bad=skip_bad),
                                skip_bad=skip_bad, skipped=report.skipped)
        report.units.extend(units)
    return report


def parse_locomo_time(text: str) -> datetime:
    """Parse a LoCoMo session time such as ``"1:56 pm on 8 May, 2023"``."""
    return datetime.strptime(" ".join(text.split()), _DATE_FORMAT)


def normalise_evidence(raw: Any) -> tuple[list[str], int, list[str]]:
    """Canonical dia ids from a raw ``evidence`` list.

    Returns (ids in order without duplicates, how many raw entries were rewritten,
    entries that hold no dia id at all).
    """
    items = raw if isinstance(raw, list) else [raw]
    ids: list[str] = []
    rewritten = 0
    unparseable: list[str] = []
    for item in items:
        text = str(item)
        found = [f"D{int(s)}:{int(t)}" for s, t in _LOOSE_DIA_ID.findall(text)]
        if not found:
            unparseable.append(text)
            continue
        if found != [text]:
            rewritten += 1
        ids.extend(i for i in found if i not in ids)
    return ids, rewritten, unparseable


def _read_samples(path: Path) -> list[tuple[Path, int | None, Any]]:
    """(file, index in file or None, raw sample) for every conversation under `path`."""
    if path.is_dir():
        files = sorted(path.glob("conv-*.json"), key=_natural_key)
        if not files and (path / "locomo10.json").is_file():
            return _read_samples(path / "locomo10.json")
        if not files:
            raise bad_file(path, "no conv-*.json files and no locomo10.json in this directory",
                           FILE_HINT)
        return [(file, None, read_json(file, FILE_HINT)) for file in files]
    data = read_json(path, FILE_HINT)
    if isinstance(data, list):
        return [(path, i, sample) for i, sample in enumerate(data)]
    if isinstance(data, dict):
        return [(path, None, data)]
    raise bad_file(path, f"top level is a {type(data).__name__}, not a list of samples or one "
                   "conversation object", FILE_HINT)


def _natural_key(file: Path) -> tuple[int, str]:
    digits = re.findall(r"\d+", file.stem)
    return (int(digits[0]) if digits else -1, file.name)


def _parse_sample(file: Path, index: int | None, sample: Any, report: LoadReport, *,
                  skip_bad: bool) -> Unit:
    """One conversation of either layout as a Unit."""
    if index is None:  # per-conversation file: the object is the conversation itself
        sample_id, conversation = file.stem, sample
        where = f"conversation {sample_id}"
        require(sample, "speaker_a", str, file, where)
    else:
        where = f"sample {index}"
        sample_id = require(sample, "sample_id", str, file, where)
        where = f"sample {index} ({sample_id})"
        conversation = require(sample, "conversation", dict, file, where)
    speakers = (require(conversation, "speaker_a", str, file, where),
                require(conversation, "speaker_b", str, file, where))
    turns = _parse_sessions(conversation, file, where)
    known = {turn.id for turn in turns}
    raw_qa = require(sample, "qa", list, file, where)
    questions = collect_records(
        list(enumerate(raw_qa)),
        lambda item: _parse_question(item[1], sample_id, item[0], known, file, where, report),
        skip_bad=skip_bad, skipped=report.skipped)
    return Unit(id=sample_id, benchmark=BENCHMARK, agents=speakers, turns=tuple(turns),
                questions=tuple(questions), meta={"file": str(file)})


def _parse_sessions(conversation: dict[str, Any], file: Path, where: str) -> list[Turn]:
    numbers = sorted(int(m.group(1)) for key in conversation
                     if (m := _SESSION_KEY.fullmatch(key)) and isinstance(conversation[key], list))
    if not numbers:
        raise bad_record(file, where, "session_1", "is missing: the conversation has no "
                         "session_N turn lists")
    turns: list[Turn] = []
    seen: set[str] = set()
    for n in numbers:
        date_key = f"session_{n}_date_time"
        raw_date = require(conversation, date_key, str, file, where)
        try:
            at = parse_locomo_time(raw_date)
        except ValueError:
            raise bad_record(file, where, date_key, f"is not a LoCoMo time like "
                             f"'1:56 pm on 8 May, 2023': {raw_date!r}") from None
        for j, raw in enumerate(conversation[f"session_{n}"]):
            turn = _parse_turn(raw, f"session_{n}", at, file, f"{where} session_{n}[{j}]")
            if turn.id in seen:
                raise bad_record(file, f"{where} session_{n}[{j}]", "dia_id",
                                 f"repeats {turn.id!r}")
            seen.add(turn.id)
            turns.append(turn)
    return turns


def _parse_turn(raw: Any, session: str, at: datetime, file: Path, where: str) -> Turn:
    dia_id = require(raw, "dia_id", str, file, where).strip()
    if not _DIA_ID.fullmatch(dia_id):
        raise bad_record(file, where, "dia_id", f"is not of the form 'D3:1': {dia_id!r}")
    speaker = require(raw, "speaker", str, file, where)
    text = require(raw, "text", str, file, where, allow_empty=True)
    meta: dict[str, Any] = {}
    caption = raw.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        text = f"{text} [shares a photo: {caption.strip()}]".strip()
        meta["blip_caption"] = caption
        for key in ("img_url", "query"):
            if key in raw:
                meta[key] = raw[key]
    return Turn(id=dia_id, speaker=speaker, text=text, at=at, session=session, meta=meta)


def _parse_question(raw: Any, sample_id: str, i: int, known: set[str], file: Path,
                    conv_where: str, report: LoadReport) -> Question:
    where = f"{conv_where} qa[{i}]"
    text = require(raw, "question", str, file, where)
    category = str(require(raw, "category", (int, str), file, where)).strip()
    if category not in CATEGORIES:
        raise bad_record(file, where, "category", f"is {category!r}; LoCoMo categories are 1-5")
    answer_key = "adversarial_answer" if category == "5" else "answer"
    answer = answer_text(require(raw, answer_key, (str, int, float), file, where,
                                 allow_empty=True))
    if "evidence" not in raw:
        raise bad_record(file, where, "evidence", "is missing")
    ids, rewritten, unparseable = normalise_evidence(raw["evidence"])
    dangling = [e for e in ids if e not in known]
    evidence = [e for e in ids if e in known]
    if not raw["evidence"]:
        raise bad_record(file, where, "evidence", "is empty: a question needs at least one "
                         "evidence dia id")
    if not evidence:
        raise bad_record(file, where, "evidence", f"holds no dia id of this conversation "
                         f"(raw: {raw['evidence']!r})")
    report.notes["evidence_ids_rewritten"] += rewritten
    report.notes["evidence_ids_unparseable_dropped"] += len(unparseable)
    report.notes["evidence_ids_unknown_dropped"] += len(dangling)
    meta: dict[str, Any] = {"category_name": CATEGORIES[category]}
    if rewritten or unparseable or dangling:
        meta["raw_evidence"] = raw["evidence"]
    if category == "5" and raw.get("answer") is not None:
        meta["answer"] = answer_text(raw["answer"])
    sessions = tuple(dict.fromkeys(f"session_{e[1:].split(':')[0]}" for e in evidence))
    return Question(id=f"{sample_id}:q{i}", text=text, category=category,
                    evidence=tuple(evidence), answer=answer, asked_at=None, asker=None,
                    evidence_sessions=sessions, abstention=category == "5", meta=meta)

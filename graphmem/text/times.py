"""Time normalisation: when a statement says something happened, as an absolute span.

``normalise_time(text, reference)`` finds the time expressions of a statement with the
rules of ``time_rules`` (our own regexes: fast, and every match is one we can explain)
and resolves them against the reference, the deposit's own date: "last Saturday" said on
Thursday 25 May 2023 is ``[2023-05-20, 2023-05-21)``. Week, weekend, month, season and
year expressions become intervals; "since 2016" runs from 2016 to the reference;
"between 2016 and 2018" covers both; "early/mid/late X" takes a third of X.

A bare weekday or date (no year, no "last"/"next") looks back from the reference unless
the statement speaks of the future: a future marker ("will", "going to", ...) anywhere,
or a scheduling construction just before the expression (``SCHEDULED``): a verb that
sets or moves a time with the expression as its goal ("moved to Friday", "postponed
until May 3", "is scheduled for June 2", "set for Monday") or a present-tense copula
("the sync is on Monday"). "The meeting moved to Friday" said on Wednesday 8 May 2024
is Friday 10 May, not 3 May: a schedule names when something will happen.

``parse_when(value)`` reads the absolute times a caller supplies (ISO 8601, "8 May 2023",
"1:56 pm on 8 May, 2023", epoch milliseconds, datetime); dateparser reads the free forms.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from graphmem.errors import InvalidInput
from graphmem.text.time_rules import FUTURE_MARKERS, RULES
from graphmem.text.timespan import Granularity, TimeSpan, start_of_day

__all__ = ["TimeSpan", "Granularity", "normalise_time", "find_time_spans", "parse_when"]

SINCE_BEFORE = re.compile(r"\b(?:ever\s+)?since\s*$", re.IGNORECASE)
RANGE_OPEN = re.compile(r"\b(?:between|from)\s*$", re.IGNORECASE)
RANGE_JOIN = re.compile(r"^\s*(?:and|to|until|till|through|-|–)\s*$", re.IGNORECASE)
PART_BEFORE = re.compile(r"\b(?P<part>early|mid|late|the (?:beginning|start|middle|end) of)"
                         r"(?:\s+|-)(?:the\s+)?$", re.IGNORECASE)
PART_INDEX = {"early": 0, "the beginning of": 0, "the start of": 0, "mid": 1,
              "the middle of": 1, "late": 2, "the end of": 2}
#: a scheduling construction ending just before a time expression (module docstring)
SCHEDULED = re.compile(
    r"(?:\b(?:move[sd]?|moving|push(?:es|ed)?|pushing|postpone[sd]?|postponing|"
    r"reschedule[sd]?|rescheduling|delay(?:s|ed)?|shift(?:s|ed)?|bring(?:s)? forward|"
    r"brought forward|schedule[sd]?|plan(?:s|ned)?|set|slated|booked|pencil(?:l)?ed in|"
    r"change[sd]?|switch(?:es|ed)?)\b(?:\s+[\w'’]+){0,6}?\s+(?:to|for|until|till|on)"
    r"|\b(?:is|are|'s|’s)\s+(?:(?:now|still|back|again|also)\s+)?(?:on|at|for))\s*$",
    re.IGNORECASE)
FINER: dict[str, Granularity] = {"decade": "year", "year": "month", "season": "month", "month": "day", "week": "day"}


def find_time_spans(text: str, reference: datetime) -> list[TimeSpan]:
    """Every time expression in ``text``, resolved against ``reference``, in text order."""
    text, reference = check_inputs(text, reference)
    found = [(start, end, span.with_expression(text[start:end]))
             for start, end, span in match_expressions(text.replace("’", "'"), reference)]
    found = [apply_modifiers(text, start, end, span, reference) for start, end, span in found]
    return join_ranges(text, found)


def normalise_time(text: str, reference: datetime) -> TimeSpan | None:
    """When ``text`` says its event happened: the first time expression, resolved.

    ``reference`` is the deposit's own date; relative expressions are read against it.
    Returns None when the statement names no time (the memory keeps its deposit time).
    """
    spans = find_time_spans(text, reference)
    return spans[0] if spans else None


def check_inputs(text: object, reference: object) -> tuple[str, datetime]:
    """The statement and reference, or InvalidInput saying which one is wrong."""
    if not isinstance(text, str):
        raise InvalidInput(f"time normalisation needs the statement as a str, got {type(text).__name__}")
    if not isinstance(reference, datetime):
        reference = parse_when(reference)
    return text, reference


def match_expressions(text: str, reference: datetime) -> list[tuple[int, int, TimeSpan]]:
    """Non-overlapping rule matches, longest first where they overlap, in text order."""
    future = bool(FUTURE_MARKERS.search(text))
    candidates = []
    for rule in RULES:
        for match in rule.pattern.finditer(text):
            start = core_start(match, text)
            ahead = future or scheduled(text, match.start())
            span = rule.resolve(match, reference, ahead, text[start:match.end()])
            if span is not None:
                candidates.append((start, match.end(), span))
    candidates.sort(key=lambda item: (item[0], item[0] - item[1]))
    kept: list[tuple[int, int, TimeSpan]] = []
    for start, end, span in candidates:
        if all(end <= other_start or start >= other_end for other_start, other_end, _ in kept):
            kept.append((start, end, span))
    return sorted(kept, key=lambda item: item[0])


def scheduled(text: str, start: int) -> bool:
    """Whether a scheduling construction ends where the expression at ``start`` begins
    (a leading "on"/"to" the rule itself matched counts as the construction's)."""
    before = text[:start]
    lead = re.match(r"\s*(on|to|for|until|till)\b", text[start:], re.IGNORECASE)
    if lead:
        before = text[:start + lead.end()]
    return bool(SCHEDULED.search(before))


def core_start(match: re.Match, text: str) -> int:
    """Where the expression proper starts: after a leading preposition such as "in"."""
    lead = next((name for name in ("prep", "lead") if name in match.re.groupindex
                 and match.group(name)), None)
    if lead:
        start = match.end(lead)
        while start < match.end() and (text[start].isspace() or text[start] == "-"):
            start += 1
        return start
    return match.start()


def apply_modifiers(text: str, start: int, end: int, span: TimeSpan,
                    reference: datetime) -> tuple[int, int, TimeSpan]:
    """Apply "since X" (X up to the reference) and "early/mid/late X" (a third of X)."""
    before = text[:start]
    part = PART_BEFORE.search(before)
    if part and span.granularity in FINER:
        index = PART_INDEX[" ".join(part.group("part").lower().split())]
        start = part.start()
        span = third_of(span, index, text[start:end])
    since = SINCE_BEFORE.search(text[:start])
    if since and span.start < reference:
        start = since.start()
        span = TimeSpan(span.start, reference, span.granularity, text[start:end])
    return start, end, span


def third_of(span: TimeSpan, index: int, expression: str) -> TimeSpan:
    """The first, middle or last third of a span, cut at month starts for years and decades."""
    if span.granularity in ("year", "decade"):
        months = (span.end.year - span.start.year) * 12 // 3
        bounds = [span.start.replace(year=span.start.year + (months * i) // 12,
                                     month=(months * i) % 12 + 1) for i in range(3)] + [span.end]
    else:
        third = (span.end - span.start) / 3
        bounds = [start_of_day(span.start + third * i) for i in range(3)] + [span.end]
    return TimeSpan(bounds[index], bounds[index + 1], FINER[span.granularity], expression)


def join_ranges(text: str, found: list[tuple[int, int, TimeSpan]]) -> list[TimeSpan]:
    """Fold "between A and B" / "from A to B" into one span from A to the end of B."""
    joined: list[tuple[int, int, TimeSpan]] = []
    for start, end, span in found:
        opening = RANGE_OPEN.search(text[:joined[-1][0]]) if joined else None
        if opening and RANGE_JOIN.match(text[joined[-1][1]:start]):
            first = joined[-1][2]
            last = move_after(span, first)
            if last.end > first.start:
                expression = text[opening.start():end]
                joined[-1] = (opening.start(), end,
                              TimeSpan(first.start, last.end, first.granularity, expression))
                continue
        joined.append((start, end, span))
    return [span for _, _, span in joined]


def move_after(span: TimeSpan, first: TimeSpan) -> TimeSpan:
    """A yearly span ("July") that a range's start ("May 2023") puts in a later year."""
    if span.end > first.start or span.granularity not in ("day", "month", "season"):
        return span
    years = first.start.year - span.start.year + (1 if span.start.replace(year=first.start.year) < first.start else 0)
    try:
        return TimeSpan(span.start.replace(year=span.start.year + years),
                        span.end.replace(year=span.end.year + years), span.granularity, span.expression)
    except ValueError:  # 29 February
        return span


def parse_when(value: object) -> datetime:
    """An absolute time from a caller: datetime, epoch milliseconds, ISO 8601 or a date text.

    Aware times are converted to UTC and returned naive (graphmem's convention: naive
    means UTC or the conversation's wall clock). Raises InvalidInput when the value
    cannot be read, or names no year (a bare "8 May" would depend on today's date).
    """
    if isinstance(value, datetime):
        return to_naive_utc(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InvalidInput(f"cannot read a time from {type(value).__name__} {value!r}; "
                           "give a datetime, epoch milliseconds, or a text such as '2023-05-08T13:56'")
    if isinstance(value, (int, float)) or value.strip().isdigit():
        return read_epoch_ms(value)
    text = " ".join(value.split())
    try:
        return to_naive_utc(datetime.fromisoformat(text.replace("Z", "+00:00")))
    except ValueError:
        pass
    return read_date_text(text)


def read_epoch_ms(value: int | float | str) -> datetime:
    """Epoch milliseconds as a naive UTC datetime."""
    try:
        moment = datetime(1970, 1, 1) + timedelta(milliseconds=float(value))
    except (OverflowError, ValueError) as exc:
        raise InvalidInput(f"epoch milliseconds {value!r} are out of range") from exc
    return moment


def read_date_text(text: str) -> datetime:
    """A free-form absolute date text, read by dateparser; a year must be present."""
    if not re.search(r"\b\d{4}\b", text):
        raise InvalidInput(f"cannot read {text!r} as an absolute time: it names no year; "
                           "give e.g. '8 May 2023' or '2023-05-08T13:56'")
    import dateparser

    parsed = dateparser.parse(text, languages=["en"], settings={
        "PARSERS": ["custom-formats", "absolute-time"], "PREFER_DAY_OF_MONTH": "first",
        "REQUIRE_PARTS": ["year"]})
    if parsed is None:
        raise InvalidInput(f"cannot read {text!r} as a time; give an ISO 8601 text "
                           "('2023-05-08T13:56'), a date ('8 May 2023', '1:56 pm on 8 May, 2023'), "
                           "epoch milliseconds, or a datetime")
    return to_naive_utc(parsed)


def to_naive_utc(moment: datetime) -> datetime:
    """``moment`` unchanged if naive, else converted to UTC and made naive."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(timezone.utc).replace(tzinfo=None)

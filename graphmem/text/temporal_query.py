"""Temporal intent of a question, for the StoryArc channel of recall.

``temporal_query("What did Caroline do before the trip to Paris?", ref)`` says the
question asks for memories *before* an anchor event ("the trip to Paris"); "What did Mel
paint last summer?" asks for memories *during* a resolved span; "When did ..." asks for
a time. Without a reference only absolute times ("in 2022", "May 2023") are resolved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from graphmem.errors import InvalidInput
from graphmem.text.times import TimeSpan, find_time_spans

Relation = Literal["between", "before", "after", "first", "last", "when", "how_long", "during"]

PROBE_REFERENCES = (datetime(2001, 3, 14, 12), datetime(2011, 9, 21, 12))
BOUNDARY = re.compile(r"\b(?P<word>before|after|prior to|following|since|until|till|by the time)\s+"
                      r"(?P<rest>[^?!.;]+)", re.IGNORECASE)
BETWEEN = re.compile(r"\bbetween\s+(?P<rest>[^?!.;]+?\s+and\s+[^?!.;,]+)", re.IGNORECASE)
FIRST = re.compile(r"\b(?:first|earliest|initially|originally)\b", re.IGNORECASE)
LAST = re.compile(r"\b(?:most recent(?:ly)?|latest|last|recently)\b", re.IGNORECASE)
WHEN = re.compile(r"\b(?:when|what (?:year|month|day|date|time)|which (?:year|month|day|date)|"
                  r"how long ago|what age)\b\s*(?P<rest>[^?!.;]*)", re.IGNORECASE)
HOW_LONG = re.compile(r"\bhow long\b(?!\s+ago)\s*(?P<rest>[^?!.;]*)", re.IGNORECASE)
AUXILIARY = re.compile(r"^(?:did|does|do|was|were|is|are|will|would|has|have|had|can|could)\s+",
                       re.IGNORECASE)
WORD_FOR: dict[str, Relation] = {"before": "before", "prior to": "before", "until": "before", "till": "before",
            "by the time": "before", "after": "after", "following": "after", "since": "after"}


@dataclass(frozen=True)
class TemporalIntent:
    """What a question asks in time: the relation, a resolved span, an anchor event."""

    relation: Relation
    span: TimeSpan | None
    anchor: str | None
    asks_when: bool


def temporal_query(text: str, reference: datetime | None = None) -> TemporalIntent | None:
    """The temporal intent of a question, or None when it has no temporal side."""
    if not isinstance(text, str):
        raise InvalidInput(f"temporal_query needs the question as a str, got {type(text).__name__}")
    spans, mentioned = resolved_spans(text, reference)
    asks_when = bool(WHEN.search(text))
    relation, anchor = find_relation(text, mentioned)
    if relation is None and not mentioned:
        return None
    span = spans[0][2] if spans else None
    return TemporalIntent(relation or "during", span, anchor, asks_when)


def resolved_spans(text: str, reference: datetime | None) -> tuple[list[tuple[int, int, TimeSpan]], ...]:
    """(usable spans, every time expression) with offsets; no reference: absolute ones only."""
    if reference is not None:
        spans = locate(text, find_time_spans(text, reference))
        return spans, spans
    first, second = (locate(text, find_time_spans(text, probe)) for probe in PROBE_REFERENCES)
    return [found for found, other in zip(first, second) if found[2] == other[2]], first


def locate(text: str, spans: list[TimeSpan]) -> list[tuple[int, int, TimeSpan]]:
    """Each span with the character offsets of its expression in ``text``."""
    located, cursor = [], 0
    for span in spans:
        start = text.find(span.expression, cursor)
        start = start if start >= 0 else cursor
        located.append((start, start + len(span.expression), span))
        cursor = start + len(span.expression)
    return located


def find_relation(text: str, spans: list[tuple[int, int, TimeSpan]]) -> tuple[Relation | None, str | None]:
    """The strongest temporal relation in the question and its anchor phrase, if any."""
    inside = lambda position: any(start <= position < end for start, end, _ in spans)  # noqa: E731
    between = BETWEEN.search(text)
    if between:
        return "between", None if inside(between.start("rest")) else clean_anchor(between.group("rest"))
    for boundary in BOUNDARY.finditer(text):
        if inside(boundary.start()):
            continue  # "since 2016" is a span, its relation comes from the span itself
        anchor = None if inside(boundary.start("rest")) else clean_anchor(boundary.group("rest"))
        return WORD_FOR[boundary.group("word").lower()], anchor
    if any(span.expression.lower().startswith("since") for _, _, span in spans):
        return "after", None
    when = WHEN.search(text)
    event = clean_anchor(when.group("rest")) if when else None
    if FIRST.search(text):
        return "first", event
    if any(not inside(match.start()) for match in LAST.finditer(text)):
        return "last", event
    how_long = HOW_LONG.search(text)
    if how_long:
        return "how_long", clean_anchor(how_long.group("rest"))
    if when:
        return "when", event
    return None, None


def clean_anchor(phrase: str) -> str | None:
    """An anchor phrase without a leading auxiliary, trailing clause or punctuation."""
    phrase = re.split(r",|\s+(?:and then|so that|because)\s+", phrase.strip())[0]
    phrase = AUXILIARY.sub("", phrase.strip()).strip(" ?!.\"'")
    return phrase or None

"""The English time-expression rules: one regex and one resolver per kind of expression.

Each rule finds candidate expressions in a statement and resolves a match against the
reference instant (the deposit's own date) into a ``TimeSpan``. Ambiguous bare forms
("on Friday", "in the summer", "3 May") look back by default and forward when the
statement speaks of the future ("will", "going to", ...). Numeric dates such as
"5/8/2023" are read by dateparser (month first, as English does by default).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Callable

from graphmem.text.timespan import (
    TimeSpan, day_span, month_span, season_span, shift, start_of_day, unit_span,
    week_span, weekend_span, year_span,
)

Resolver = Callable[[re.Match, datetime, bool, str], "TimeSpan | None"]

FUTURE_MARKERS = re.compile(
    r"\b(?:will|shall|going to|gonna|plan(?:s|ning)? to|about to|can'?t wait|cannot wait|"
    r"looking forward|hope to|hoping to|intend|upcoming|coming up|excited (?:to|for|about))\b"
    r"|\w'll\b", re.IGNORECASE)

NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
}
VAGUE_AMOUNTS = {"a few": (2, 5), "few": (2, 5), "a couple": (2, 3), "a couple of": (2, 3),
                 "several": (3, 7), "some": (2, 5)}
WIDENING = {"about", "around", "roughly", "approximately", "almost", "nearly", "maybe", "like"}

AMOUNT = (r"(?P<amount>\d{1,3}|a few|a couple(?: of)?|few|several|some|"
          + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + ")")
QUALIFIER = (r"(?:(?P<qual>about|around|roughly|approximately|almost|nearly|maybe|like|over|"
             r"more than|just|only)\s+)?")
UNIT = r"(?P<unit>minute|hour|day|night|weekend|week|month|year|decade)s?"
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): number for number, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
FULL_MONTH = r"(?P<month>" + "|".join(calendar.month_name[1:]).lower() + r")"
YEAR = r"(?P<year>(?:19|20)\d{2})"
BACK = r"(?P<rel>last|this past|past)"
AHEAD = r"(?P<rel>next|this coming|coming)"
REL = r"(?P<rel>last|this past|this coming|this|next|past|coming)"
SEASON_PREPOSITIONS = {"in", "during", "over", "since", "for", "by", "until", "till", "before",
                       "after", "through", "around", "early", "late", "mid"}
HOLIDAYS = {
    "christmas eve": (12, 24), "christmas": (12, 25), "xmas": (12, 25),
    "new year's eve": (12, 31), "new years eve": (12, 31), "new year's day": (1, 1),
    "new year's": (1, 1), "new years": (1, 1), "new year": (1, 1), "halloween": (10, 31),
    "valentine's day": (2, 14), "valentines day": (2, 14), "valentine's": (2, 14),
    "independence day": (7, 4), "fourth of july": (7, 4), "4th of july": (7, 4),
    "thanksgiving": None, "easter": None,
}


@dataclass(frozen=True)
class Rule:
    """One kind of time expression: its pattern and how to resolve a match."""

    name: str
    pattern: re.Pattern
    resolve: Resolver


def read_amount(match: re.Match) -> tuple[int, int]:
    """The (low, high) count a match names: "3" -> (3, 3), "a few" -> (2, 5)."""
    word = match.group("amount").lower()
    if word in VAGUE_AMOUNTS:
        return VAGUE_AMOUNTS[word]
    number = int(word) if word.isdigit() else NUMBER_WORDS[word]
    if (match.groupdict().get("qual") or "").lower() in WIDENING:
        return max(1, number - 1), number + 1
    return number, number


def span_between(reference: datetime, low: TimeSpan, high: TimeSpan, expression: str) -> TimeSpan:
    """The span from the earlier of two unit spans to the end of the later one."""
    first, last = sorted((low, high), key=lambda span: span.start)
    return TimeSpan(first.start, last.end, first.granularity, expression)


def resolve_ago(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan | None:
    """"two weeks ago", "about five years ago", "a few days ago": the unit(s) that long before."""
    unit = match.group("unit").lower()
    low, high = read_amount(match)
    ahead = match.groupdict().get("ahead") is not None
    if ahead and not future and expression.lower().startswith("in"):
        return None  # "did it in two days" is a duration, not a date
    sign = 1 if ahead else -1
    near = unit_span(reference, shift(reference, unit, sign * low), unit, expression)
    far = unit_span(reference, shift(reference, unit, sign * high), unit, expression)
    return span_between(reference, near, far, expression)


def resolve_rolling(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan | None:
    """"the past week", "the last few months", "the next two days": a window ending/starting now."""
    unit = match.group("unit").lower()
    direction = match.group("dir").lower()
    plural = match.group(0).lower().endswith("s")
    if match.group("amount"):
        low, high = read_amount(match)
    elif unit in ("day", "night") or (direction in ("next", "coming") and not plural):
        return None  # "the next day", "the last day": about another event, not now
    else:
        low, high = (2, 5) if plural else (1, 1)
    today = start_of_day(reference)
    if direction in ("past", "last"):
        start, end = shift(today, unit, -high), today + timedelta(days=1)
    else:
        start, end = today, shift(today, unit, high) + timedelta(days=1)
    granularity = "day" if unit in ("day", "night") else unit_span(reference, today, unit, "").granularity
    return TimeSpan(start, end, granularity, expression)


def resolve_day_word(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan:
    """"yesterday", "tonight", "last night", "the day before yesterday", "the other day"."""
    word = " ".join(match.group(0).lower().split())
    if word == "the other day":
        today = start_of_day(reference)
        return TimeSpan(today - timedelta(days=7), today, "week", expression)
    offsets = {"the day before yesterday": -2, "yesterday": -1, "last night": -1,
               "tomorrow": 1, "the day after tomorrow": 2}
    return day_span(reference + timedelta(days=offsets.get(word, 0)), expression)


def resolve_weekday(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan:
    """"last Saturday" (the Saturday before the reference), "next Friday", "this Monday"."""
    target = next(index for index, name in enumerate(WEEKDAYS)
                  if name.startswith(match.group("day").lower()[:3]))
    rel = (match.group("rel") or "").lower()
    current = reference.weekday()
    if rel == "this":
        return day_span(week_span(reference, "").start + timedelta(days=target), expression)
    ahead = rel in ("next", "this coming", "coming") or (not rel and future)
    if ahead:
        return day_span(reference + timedelta(days=(target - current) % 7 or 7), expression)
    return day_span(reference - timedelta(days=(current - target) % 7 or 7), expression)


def resolve_weekend(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan:
    """"last weekend", "this past weekend", "over the weekend", "next weekend"."""
    rel = (match.group("rel") or "").lower()
    in_weekend = reference.weekday() >= 5
    weeks = {"last": -1, "this": 0, "next": 1}.get(rel)
    if weeks is None and rel in ("this past", "past"):
        weeks = 0 if in_weekend else -1
    elif weeks is None and rel in ("this coming", "coming"):
        weeks = 1 if in_weekend else 0
    elif weeks is None:
        weeks = 0 if in_weekend or future else -1
    return weekend_span(reference + timedelta(weeks=weeks), expression)


def resolve_unit_relative(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan:
    """"last week", "this month", "next year", "later this month", "last decade"."""
    rel = match.group("rel").lower()
    steps = -1 if rel in ("last", "past", "this past") else 1 if rel in ("next", "coming", "this coming") else 0
    unit = match.group("unit").lower()
    return unit_span(reference, shift(reference, unit, steps), unit, expression)


def pick_instance(spans: list[TimeSpan], reference: datetime, rel: str, future: bool) -> TimeSpan | None:
    """Of yearly recurring spans (sorted), the one that ``rel`` and the tense point at."""
    containing = [span for span in spans if span.start <= reference < span.end]
    before = [span for span in spans if span.end <= reference]
    after = [span for span in spans if span.start > reference]
    if rel in ("last", "past", "this past"):
        return before[-1] if before else None
    if rel in ("next", "coming", "this coming"):
        return after[0] if after else None
    if rel == "this":
        same_year = [span for span in spans if span.start.year == reference.year]
        chosen = containing or same_year
        return chosen[0] if chosen else None
    if containing:
        return containing[0]
    if future:
        return after[0] if after else None
    return before[-1] if before else None


def resolve_season(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan | None:
    """"this summer", "last winter", "in the fall", "summer 2022"."""
    season = match.group("season").lower()
    if match.group("year"):
        return season_span(reference, season, int(match.group("year")), expression)
    if not (match.group("rel") or match.group("the")
            or (match.group("prep") or "").lower() in SEASON_PREPOSITIONS):
        return None  # "to fall asleep", "spring and ..." are not seasons
    spans = [season_span(reference, season, year, expression)
             for year in range(reference.year - 2, reference.year + 2)]
    return pick_instance(spans, reference, (match.group("rel") or "").lower(), future)


def holiday_date(name: str, year: int) -> tuple[int, int]:
    """(month, day) of a holiday in ``year``; Thanksgiving is the US one."""
    fixed = HOLIDAYS[name]
    if fixed:
        return fixed
    if name == "easter":
        from dateutil.easter import easter

        day = easter(year)
        return day.month, day.day
    first = calendar.weekday(year, 11, 1)
    return 11, 1 + (3 - first) % 7 + 21


def resolve_holiday(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan | None:
    """"last Christmas", "on Halloween", "Thanksgiving 2022"."""
    name = " ".join(match.group("holiday").lower().replace("’", "'").split())
    if match.group("year"):
        month, day = holiday_date(name, int(match.group("year")))
        return day_span(reference.replace(year=int(match.group("year")), month=month, day=day), expression)
    if not (match.group("rel") or match.group("prep")):
        return None
    spans = []
    for year in range(reference.year - 1, reference.year + 2):
        month, day = holiday_date(name, year)
        spans.append(day_span(start_of_day(reference).replace(year=year, month=month, day=day), expression))
    return pick_instance(spans, reference, (match.group("rel") or "").lower(), future)


def month_number(match: re.Match) -> int | None:
    """The month a match names; a lowercase "may" is the verb, not the month."""
    word = match.group("month")
    if word == "may" or word.lower() == "mar" and word != "Mar":
        return None
    return MONTHS[word.lower().rstrip(".")]


def resolve_calendar_date(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan | None:
    """"3 May", "May 3rd, 2022", "the 8th of May 2023": a day, this year's nearest if no year."""
    month = month_number(match)
    day = int(match.group("day"))
    if month is None or not 1 <= day <= 31:
        return None
    if match.group("year"):
        years = [int(match.group("year"))]
    else:
        years = [reference.year - 1, reference.year, reference.year + 1]
    spans = []
    for year in years:
        if day <= calendar.monthrange(year, month)[1]:
            spans.append(day_span(start_of_day(reference).replace(year=year, month=month, day=day), expression))
    if len(years) == 1 or not spans:
        return spans[0] if spans else None
    today = [span for span in spans if span.contains(reference)]
    return today[0] if today else pick_instance(spans, reference, "", future)


def resolve_month(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan | None:
    """"in May", "last March", "May 2022", "next September"."""
    month = month_number(match)
    if month is None:
        return None
    if match.group("year"):
        return month_span(reference, int(match.group("year")), month, expression)
    spans = [month_span(reference, year, month, expression)
             for year in range(reference.year - 1, reference.year + 2)]
    return pick_instance(spans, reference, (match.group("rel") or "").lower(), future)


def resolve_year(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan:
    """"in 2022", "2016-2018", "back in 2019"."""
    first = int(match.group("year"))
    last = int(match.groupdict().get("year2") or first)
    return year_span(reference, min(first, last), expression, years=abs(last - first) + 1)


def resolve_decade(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan:
    """"the 90s", "the 1980s": the ten years; two-digit decades take the latest not after now."""
    decade = int(match.group("decade")) * 10
    if match.group("century"):
        start = int(match.group("century")) * 100 + decade
    else:
        start = 2000 + decade if 2000 + decade <= reference.year else 1900 + decade
    return year_span(reference, start, expression, years=10, granularity="decade")


def resolve_numeric_date(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan | None:
    """"2023-05-08", "5/8/2023": read by dateparser."""
    import dateparser

    parsed = dateparser.parse(match.group(0), languages=["en"],
                              settings={"RELATIVE_BASE": reference.replace(tzinfo=None)})
    if parsed is None:
        return None
    return day_span(reference.replace(year=parsed.year, month=parsed.month, day=parsed.day), expression)


def resolve_day_of_month(match: re.Match, reference: datetime, future: bool, expression: str) -> TimeSpan | None:
    """"on the 5th": that day of the reference's month (or the month before/after)."""
    day = int(match.group("day"))
    spans = []
    for months in (-1, 0, 1):
        moment = shift(reference.replace(day=1), "month", months)
        if 1 <= day <= calendar.monthrange(moment.year, moment.month)[1]:
            spans.append(day_span(moment.replace(day=day), expression))
    today = [span for span in spans if span.contains(reference)]
    return today[0] if today else pick_instance(spans, reference, "", future)


def compile_rule(name: str, pattern: str, resolve: Resolver) -> Rule:
    """A rule with its pattern compiled case-insensitively with word boundaries."""
    return Rule(name, re.compile(r"\b" + pattern + r"\b", re.IGNORECASE), resolve)


PREP = r"(?:(?P<prep>in|during|over|since|for|by|until|till|before|after|around|through|on|at|of|from|to|and|between|early|late|mid|back in)\s+)"
RULES: list[Rule] = [
    compile_rule("ago", QUALIFIER + AMOUNT + r"\s+" + UNIT + r"\s+(?:ago|back)", resolve_ago),
    compile_rule("ahead", r"(?:in|within)\s+" + QUALIFIER + AMOUNT + r"\s+" + UNIT
                 + r"(?P<ahead>)(?!\s+ago)", resolve_ago),
    compile_rule("from_now", QUALIFIER + AMOUNT + r"\s+" + UNIT + r"\s+from now(?P<ahead>)", resolve_ago),
    compile_rule("rolling", r"(?:the\s+)(?P<dir>past|last|next|coming)\s+(?:" + AMOUNT + r"\s+)?" + UNIT,
                 resolve_rolling),
    compile_rule("day_word", r"(?:the day before yesterday|the day after tomorrow|yesterday|today|"
                 r"tonight|tomorrow|last night|this (?:morning|afternoon|evening)|the other day)",
                 resolve_day_word),
    compile_rule("weekday", r"(?:" + REL + r"\s+)?(?P<day>" + "|".join(WEEKDAYS) + ")", resolve_weekday),
    compile_rule("weekday_short", REL + r"\s+(?P<day>mon|tues?|wed|weds|thu|thurs?|fri|sat|sun)\.?(?!\w)",
                 resolve_weekday),
    compile_rule("weekend", r"(?:" + REL + r"|(?:over|on|at|during)?\s*the)\s+weekend", resolve_weekend),
    compile_rule("unit", r"(?:(?:later|earlier)\s+)?" + REL + r"\s+(?P<unit>week|month|year|decade)",
                 resolve_unit_relative),
    compile_rule("season", PREP + r"?(?P<the>the\s+)?(?:" + REL + r"\s+)?(?P<season>spring|summer|autumn|fall|winter)"
                 r"(?:\s+(?:of\s+)?" + YEAR + r")?", resolve_season),
    compile_rule("holiday", PREP + r"?(?:" + REL + r"\s+)?(?P<holiday>"
                 + "|".join(sorted((re.escape(h) for h in HOLIDAYS), key=len, reverse=True))
                 + r")(?:\s+" + YEAR + r")?", resolve_holiday),
    compile_rule("day_month", r"(?:the\s+)?(?P<day>\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+" + MONTH
                 + r"(?:,?\s+" + YEAR + r")?", resolve_calendar_date),
    compile_rule("month_day", MONTH + r"\s+(?:the\s+)?(?P<day>\d{1,2})(?:st|nd|rd|th)?(?![\d:])"
                 + r"(?:,?\s+" + YEAR + r")?", resolve_calendar_date),
    compile_rule("month_year", MONTH + r",?\s+(?:of\s+)?" + YEAR, resolve_month),
    compile_rule("month", r"(?:" + REL + r"\s+|" + PREP + r"(?:the month of\s+)?)" + FULL_MONTH
                 + r"(?P<year>)", resolve_month),
    compile_rule("year_range", YEAR + r"\s*(?:-|–|to|through)\s*(?P<year2>(?:19|20)\d{2})", resolve_year),
    compile_rule("year", r"(?:" + PREP + r"|(?P<lead>mid)-|the year\s+)" + YEAR
                 + r"(?!\s*(?:%|\$|dollars|euros|people|km|miles|met(?:er|re)s|feet))", resolve_year),
    compile_rule("decade", r"the\s+'?(?P<century>19|20)?(?P<decade>\d)0'?s", resolve_decade),
    compile_rule("numeric_date", r"(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4})", resolve_numeric_date),
    compile_rule("day_of_month", r"on the (?P<day>\d{1,2})(?:st|nd|rd|th)", resolve_day_of_month),
]

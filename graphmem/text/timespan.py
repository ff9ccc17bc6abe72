"""The TimeSpan value and the calendar arithmetic that builds one.

A span is half-open, ``[start, end)``; an instant has ``start == end``. Every span
keeps the tzinfo of the reference it was resolved against (naive in, naive out).
Weeks start on Monday; seasons are the meteorological ones of the northern
hemisphere (spring = March-May, summer = June-August, autumn = September-November,
winter = December-February).
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Literal

Granularity = Literal["instant", "day", "weekend", "week", "month", "season", "year",
                      "decade"]

SEASON_START_MONTH = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


@dataclass(frozen=True)
class TimeSpan:
    """When something happened: ``[start, end)`` at a granularity, and the words that said so."""

    start: datetime
    end: datetime
    granularity: Granularity
    expression: str

    def contains(self, moment: datetime) -> bool:
        """True when ``moment`` falls inside the span (an instant contains only itself)."""
        if self.start == self.end:
            return moment == self.start
        return self.start <= moment < self.end

    @property
    def midpoint(self) -> datetime:
        """The middle of the span: one instant to order coarse and fine spans on a timeline."""
        return self.start + (self.end - self.start) / 2

    def precedes(self, other: TimeSpan) -> bool:
        """True when this span ends no later than ``other`` starts (strictly before it)."""
        return self.end <= other.start and self != other

    def overlaps(self, other: TimeSpan) -> bool:
        """True when the two spans share time (an instant overlaps a span that holds it)."""
        if self.start == self.end:
            return other.contains(self.start)
        if other.start == other.end:
            return self.contains(other.start)
        return self.start < other.end and other.start < self.end

    def with_expression(self, expression: str) -> TimeSpan:
        """The same span, described by other words."""
        return replace(self, expression=expression)


def start_of_day(moment: datetime) -> datetime:
    """Midnight at the start of ``moment``'s day, same tzinfo."""
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def day_span(moment: datetime, expression: str, days: int = 1) -> TimeSpan:
    """The calendar day of ``moment`` (or ``days`` days from it)."""
    start = start_of_day(moment)
    return TimeSpan(start, start + timedelta(days=days), "day", expression)


def week_span(moment: datetime, expression: str) -> TimeSpan:
    """The Monday-to-Sunday week that holds ``moment``."""
    monday = start_of_day(moment) - timedelta(days=moment.weekday())
    return TimeSpan(monday, monday + timedelta(days=7), "week", expression)


def weekend_span(moment: datetime, expression: str) -> TimeSpan:
    """Saturday and Sunday of the week that holds ``moment``."""
    saturday = week_span(moment, expression).start + timedelta(days=5)
    return TimeSpan(saturday, saturday + timedelta(days=2), "weekend", expression)


def shift_months(year: int, month: int, months: int) -> tuple[int, int]:
    """(year, month) moved by ``months`` calendar months."""
    index = year * 12 + (month - 1) + months
    return index // 12, index % 12 + 1


def month_span(reference: datetime, year: int, month: int, expression: str,
               months: int = 1) -> TimeSpan:
    """The calendar month ``year``-``month`` (``months`` long), in ``reference``'s tzinfo."""
    start = start_of_day(reference).replace(year=year, month=month, day=1)
    end_year, end_month = shift_months(year, month, months)
    return TimeSpan(start, start.replace(year=end_year, month=end_month), "month", expression)


def year_span(reference: datetime, year: int, expression: str, years: int = 1,
              granularity: Granularity = "year") -> TimeSpan:
    """Calendar years ``year`` .. ``year + years - 1``."""
    start = start_of_day(reference).replace(year=year, month=1, day=1)
    return TimeSpan(start, start.replace(year=year + years), granularity, expression)


def season_span(reference: datetime, season: str, year: int, expression: str) -> TimeSpan:
    """The season that starts in ``year`` (winter 2022 = December 2022 - February 2023)."""
    span = month_span(reference, year, SEASON_START_MONTH[season], expression, months=3)
    return TimeSpan(span.start, span.end, "season", expression)


def unit_span(reference: datetime, moment: datetime, unit: str, expression: str) -> TimeSpan:
    """The calendar ``unit`` (day, weekend, week, month, year, decade) holding ``moment``."""
    if unit in ("minute", "hour"):
        return TimeSpan(moment, moment, "instant", expression)
    if unit in ("day", "night"):
        return day_span(moment, expression)
    if unit == "weekend":
        return weekend_span(moment, expression)
    if unit == "week":
        return week_span(moment, expression)
    if unit == "month":
        return month_span(reference, moment.year, moment.month, expression)
    if unit == "decade":
        decade = moment.year - moment.year % 10
        return year_span(reference, decade, expression, years=10, granularity="decade")
    return year_span(reference, moment.year, expression)


def shift(moment: datetime, unit: str, amount: int) -> datetime:
    """``moment`` moved by ``amount`` units (calendar-aware for months, years, decades)."""
    if unit == "minute":
        return moment + timedelta(minutes=amount)
    if unit == "hour":
        return moment + timedelta(hours=amount)
    if unit in ("day", "night"):
        return moment + timedelta(days=amount)
    if unit in ("week", "weekend"):
        return moment + timedelta(weeks=amount)
    months = {"month": 1, "year": 12, "decade": 120}[unit] * amount
    year, month = shift_months(moment.year, moment.month, months)
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def cover(first: TimeSpan, last: TimeSpan, expression: str) -> TimeSpan:
    """One span from the start of ``first`` to the end of ``last``."""
    return TimeSpan(first.start, max(first.end, last.end), first.granularity, expression)
